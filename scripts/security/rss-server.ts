/**
 * The server the memory attacks of docs/security.md are measured against: `serve()` with two bearer
 * tokens (alice, bob), defaults otherwise. Prints `{ "url", "pid" }` when listening.
 */
import { McpError, MiniMCP } from '../../src/index.js';
import { serve } from '../../src/transports/http/node.js';

const USERS: Record<string, string> = { 'token-alice': 'alice', 'token-bob': 'bob' };
const mcp = new MiniMCP<{ principal: string }>({ name: 'rss', version: '1.0.0', onError: () => {} });
mcp.resource('test://watched', {}, () => 'w');
mcp.tool('echo', {}, () => 'ok');
// A task whose result is 3.9 MiB (issue 24, finding 2).
const BIG = 'x'.repeat(Math.floor(3.9 * 1048576));
mcp.tool('big', { task: 'optional' }, () => BIG);
// Its response closed at once, so its 3.9 MiB reply goes to the resumable-stream store (finding 4).
mcp.tool('closed', {}, async (_args, ctx) => {
  ctx.closeStream();
  await new Promise((resolve) => setTimeout(resolve, 10));
  return BIG;
});
const running = await serve(mcp, {
  scope: (req) => {
    const principal = USERS[(req.headers.authorization ?? '').replace(/^Bearer /, '')];
    if (!principal) throw new McpError(-32600, 'Unauthorized', undefined, 401);
    return { principal };
  },
});
// SIGUSR2 runs a full garbage collection (the attack script starts us with --expose-gc): what is left is what the server holds.
process.on('SIGUSR2', () => (globalThis as { gc?: () => void }).gc?.());
console.log(JSON.stringify({ url: running.url, pid: process.pid }));
