/**
 * Issue 25, item 2: a hand-made `scope` factory that authenticates two users but names no principal
 * (no `principal` option, no `principal` in the scope). Before, both were the one anonymous principal:
 * bob could use alice's session, cancel her requests and read her tasks. Now the HTTP transport
 * derives the principal from the credential each presented, so they stay apart.
 */
import { bearerUser } from './support/bearer-users.js';
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createFetchHandler } from '../../src/transports/http/index.js';

const V = '2025-11-25';

function server() {
  const mcp = new MiniMCP<{ user: string }>({ name: 'hand-made-auth', version: '1', onError: () => {} });
  mcp.tool('later', { task: 'optional' }, async () => 'done');
  const handle = createFetchHandler(mcp, {
    scope: bearerUser,
  });
  return { mcp, handle };
}

const post = (user: string, body: object, extra: Record<string, string> = {}) =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer token-${user}`, ...extra },
    body: JSON.stringify(body),
  });

async function initialize(handle: ReturnType<typeof server>['handle'], user: string): Promise<string> {
  const response = await handle(post(user, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: V, capabilities: {}, clientInfo: { name: user, version: '1' } } }));
  return response.headers.get('mcp-session-id')!;
}

describe('a scope factory that names no principal', () => {
  it("keeps two credentials apart: bob cannot use alice's session", async () => {
    const { handle } = server();
    const session = await initialize(handle, 'alice');
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': V };
    expect((await handle(post('alice', ping, headers))).status).toBe(200);
    expect((await handle(post('bob', ping, headers))).status).toBe(404);
  });

  it("keeps two credentials apart: bob cannot read alice's task", async () => {
    const { handle } = server();
    const [alice, bob] = [await initialize(handle, 'alice'), await initialize(handle, 'bob')];
    const started = await (await handle(post('alice', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'later', arguments: {}, task: { ttl: 60_000 } } },
      { 'mcp-session-id': alice, 'mcp-protocol-version': V }))).json();
    const taskId = started.result.task.taskId as string;
    const get = (user: string, session: string) =>
      handle(post(user, { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId } }, { 'mcp-session-id': session, 'mcp-protocol-version': V })).then((r) => r.json());
    expect((await get('alice', alice)).result).toMatchObject({ taskId });
    expect((await get('bob', bob)).error).toMatchObject({ code: -32602 });
  });
});
