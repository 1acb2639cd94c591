/**
 * Issue 24, finding 3: 2025 GET streams and `tasks/result` waits had no per-principal quota (one
 * principal held 1,984 GET streams in 3 s, reaching maxConnections, and every other user's
 * connection failed); only `subscriptions/listen` was capped. Now the three share one quota
 * (`maxStreams`, `maxStreamsPerPrincipal`): past it 503 with Retry-After, logged once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpError, MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { get, initialize, post, request, sleep } from '../state/support/http.js';

const TOKENS: Record<string, string> = { 'token-mallory': 'mallory', 'token-bob': 'bob' };
const MODERN = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const auth = (user: string) => ({ authorization: `Bearer token-${user}` });

let running: RunningServer | undefined;
const open: AbortController[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) c.abort();
  await running?.close();
  running = undefined;
});

async function start(options: { maxStreamsPerPrincipal?: number; maxStreams?: number } = {}) {
  const errors: unknown[] = [];
  const mcp = new MiniMCP<{ principal: string }>({ name: 'streams', version: '1', onError: (e) => errors.push(e), ...options });
  mcp.tool('echo', {}, () => 'ok');
  mcp.tool('wait', { task: 'optional' }, (_a, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))));
  running = await serve(mcp, {
    port: 0,
    host: '127.0.0.1',
    scope: (req) => {
      const principal = TOKENS[(req.headers.authorization ?? '').replace(/^Bearer /, '')];
      if (!principal) throw new McpError(-32600, 'Unauthorized', undefined, 401);
      return { principal };
    },
  });
  return { url: running.url, errors };
}

/** A GET notification stream on a new session of `user`: its response (kept open until the test ends). */
async function getStream(url: string, user: string): Promise<Response> {
  const session = await initialize(url, {}, auth(user));
  const controller = new AbortController();
  open.push(controller);
  return get(url, session, controller.signal);
}

describe('one quota for long-lived streams per principal', () => {
  it('2025 GET streams: past maxStreamsPerPrincipal 503 with Retry-After; another principal still gets its stream', async () => {
    const { url, errors } = await start({ maxStreamsPerPrincipal: 3 });
    for (let i = 0; i < 3; i++) expect((await getStream(url, 'mallory')).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const refused = await getStream(url, 'mallory');
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect((await refused.json()).error).toMatchObject({ code: -32603, message: expect.stringContaining('(maxStreamsPerPrincipal)') });
    }
    expect((await getStream(url, 'bob')).status).toBe(200);
    expect(errors.map((e: any) => [e.bound, e.principal])).toEqual([['maxStreamsPerPrincipal', 'mallory']]); // logged once
    open[0]!.abort(); // one of mallory's ends: its place is hers again
    await sleep(50);
    expect((await getStream(url, 'mallory')).status).toBe(200);
  });

  it('GET streams, tasks/result waits and listen streams share the one quota', async () => {
    const { url } = await start({ maxStreamsPerPrincipal: 3 });
    expect((await getStream(url, 'mallory')).status).toBe(200);
    const session = await initialize(url, { tasks: {} }, auth('mallory'));
    const created = await (await post(url, request('tools/call', { name: 'wait', arguments: {}, task: {} }), session)).json();
    const taskId = created.result.task.taskId;
    const waiting = new AbortController();
    open.push(waiting);
    void post(url, request('tasks/result', { taskId }), session, waiting.signal).catch(() => {});
    await sleep(100);
    const listen = new AbortController();
    open.push(listen);
    const first = await post(url, request('subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: META }), { ...MODERN, ...auth('mallory') }, listen.signal);
    expect(first.status).toBe(200); // the third place
    const refused = await post(url, request('subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: META }), { ...MODERN, ...auth('mallory') });
    expect(refused.status).toBe(503);
    const wait = await post(url, request('tasks/result', { taskId }), session);
    expect(wait.status).toBe(503);
    expect(wait.headers.get('retry-after')).toBe('1');
    expect((await wait.json()).error).toMatchObject({ code: -32603, message: expect.stringContaining('(maxStreamsPerPrincipal)') });
    expect((await getStream(url, 'mallory')).status).toBe(503);
  });

  it('past maxStreams (all principals) a GET stream is refused with 503 too', async () => {
    const { url } = await start({ maxStreams: 2 });
    expect((await getStream(url, 'mallory')).status).toBe(200);
    expect((await getStream(url, 'bob')).status).toBe(200);
    const refused = await getStream(url, 'bob');
    expect(refused.status).toBe(503);
    expect((await refused.json()).error.message).toContain('(maxStreams)');
  });
});
