/**
 * The server `npm run soak -- --attack` drives (scripts/soak-attack.mjs): `serve()` with two bearer
 * tokens bound to two principals (alice, the well-behaved client; bob, the attacker), defaults
 * otherwise, and the tools the memory attacks of issue 24 need. Prints `{ "url", "pid" }` when listening.
 * With REDIS_URL and MINIMCP_SECRET set it is a cluster member (`--attack --cluster`: state on Redis).
 */
import { McpError, MiniMCP } from '../../src/index.js';
import { serve } from '../../src/transports/http/node.js';
import { runInWorker } from '../../src/worker.js';
import { clusterOptions } from '../../examples/cluster.js';

const USERS: Record<string, string> = { 'token-alice': 'alice', 'token-bob': 'bob' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const kib = (args: Record<string, unknown>) => 'x'.repeat(Math.min(Number(args.kib ?? 1), 4096) * 1024);

const mcp = new MiniMCP<{ principal: string }>({
  name: 'attack',
  version: '1.0.0',
  onError: () => {},
  principal: (s) => s?.principal,
  // Bob gets the default rate limits. Alice is a closed-loop benchmark (about 10,000 calls a second
  // alone, ten times the default requestsPerSecond), so her own limit is lifted: what is measured is
  // what bob's traffic costs her, not her own 429s.
  rateLimit: { limitsFor: (principal) => (principal === 'alice' ? false : undefined) },
  ...(await clusterOptions()),
});
mcp.resource('test://watched', {}, () => 'w');
mcp.tool('echo', {}, () => 'ok');
// A task whose result is large (finding 2) or that runs long (finding 5: a 1 ms TTL).
mcp.tool('big', { task: 'optional' }, async (args: Record<string, unknown>, ctx) => {
  await ctx.task();
  await sleep(Number(args.ms ?? 0));
  return kib(args);
});
// Large progress events, slowly: a resumable stream the client drops (finding 4).
mcp.tool('chatty', {}, async (args: Record<string, unknown>, ctx) => {
  for (let i = 1; i <= 10; i++) {
    ctx.progress(i, 10, kib(args));
    await sleep(100);
  }
  return 'done';
});
// A CPU-bound body in a worker thread (finding 11).
mcp.tool('cpu', {}, (args: Record<string, unknown>, ctx) => runInWorker(new URL('./attack-worker.mjs', import.meta.url), { ms: Number(args.ms ?? 50) }, ctx));

const running = await serve(mcp, {
  port: 0,
  scope: (req) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const principal = Object.hasOwn(USERS, token) ? USERS[token] : undefined;
    if (!principal) throw new McpError(-32600, 'Unauthorized', undefined, 401);
    return { principal };
  },
});
console.log(JSON.stringify({ url: running.url, pid: process.pid }));
