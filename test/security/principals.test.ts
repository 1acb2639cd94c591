/**
 * Issue 12, findings 4 and 5: no principal touches another's work, and none takes the whole gate.
 * Two bearer-token users, alice and bob, on one server (the fetch handler; the scope factory reads
 * the token, the `principal` option names the user). Each test failed on the code before the fix.
 */
import { bearerUser } from './support/bearer-users.js';
import { describe, expect, it } from 'vitest';
import { MiniMCP, } from '../../src/index.js';
import { createFetchHandler } from '../../src/transports/http/index.js';

const URL_ = 'http://127.0.0.1/mcp';
const JSON_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const V = '2025-11-25';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Scope { user: string }

function server(options: Partial<ConstructorParameters<typeof MiniMCP<Scope>>[0]> = {}) {
  const mcp = new MiniMCP<Scope>({ name: 'two-users', version: '1', onError: () => {}, principal: (s) => s?.user, ...options });
  const handle = createFetchHandler(mcp, {
    scope: bearerUser,
  });
  return { mcp, handle };
}

const as = (user: string, extra: Record<string, string> = {}) => ({ ...JSON_SSE, authorization: `Bearer token-${user}`, ...extra });
const post = (headers: Record<string, string>, body: object) => new Request(URL_, { method: 'POST', headers, body: JSON.stringify(body) });
const call = (id: number | string, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

async function initialize(handle: ReturnType<typeof server>['handle'], user: string, capabilities: object = {}): Promise<string> {
  const response = await handle(post(as(user), {
    jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: V, capabilities, clientInfo: { name: user, version: '1' } },
  }));
  const session = response.headers.get('mcp-session-id');
  expect(session).toBeTruthy();
  return session!;
}

/** Reads an SSE body until `until` holds for the text so far. */
async function readUntil(response: Response, until: (text: string) => boolean): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!until(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

describe('finding 4: principal isolation', () => {
  it('bob, with his own token and alice\'s session id, cannot cancel her running request', async () => {
    const { mcp, handle } = server();
    let release!: () => void;
    let cancelled = false;
    mcp.tool('work', {}, (_a, ctx) => new Promise<string>((resolve) => {
      release = () => resolve('done');
      ctx.signal.addEventListener('abort', () => ((cancelled = true), resolve('cancelled')));
    }));
    const session = await initialize(handle, 'alice');
    const pending = handle(post(as('alice', { 'mcp-session-id': session, 'mcp-protocol-version': V }), call(7, 'work')));
    await sleep(10);
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } };
    await handle(post(as('bob', { 'mcp-session-id': session, 'mcp-protocol-version': V }), cancel));
    await sleep(10);
    expect(cancelled).toBe(false);
    release();
    expect((await (await pending).json()).result.content[0].text).toBe('done');
  });

  it('bob, with alice\'s session id and a Last-Event-ID, cannot read her resumable stream', async () => {
    const { mcp, handle } = server();
    mcp.tool('secret', {}, async (_a, ctx) => {
      ctx.closeStream();
      await sleep(20);
      return 'secret result for alice';
    });
    const session = await initialize(handle, 'alice');
    const response = await handle(post(as('alice', { 'mcp-session-id': session, 'mcp-protocol-version': V }), call(1, 'secret')));
    const primed = await response.text();
    const eventId = /^id: (\S+)$/m.exec(primed)![1]!;
    await sleep(40);
    const resume = (user: string) => handle(new Request(URL_, {
      method: 'GET',
      headers: { accept: 'text/event-stream', authorization: `Bearer token-${user}`, 'mcp-session-id': session, 'mcp-protocol-version': V, 'last-event-id': eventId },
    }));
    const stolen = await resume('bob');
    expect(stolen.status).toBe(404);
    expect(await stolen.text()).not.toContain('secret result');
    const own = await resume('alice');
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('secret result for alice');
  });

  it('a forged session payload sets neither the protocol version nor the client info: it names no session (404)', async () => {
    const { mcp, handle } = server();
    mcp.tool('facts', {}, (_a, ctx) => JSON.stringify({ version: ctx.protocolVersion, info: ctx.client.info }));
    const payload = Buffer.from(JSON.stringify({ v: '9999-99-99<script>', c: { elicitation: {} }, i: ['evil', '1'] })).toString('base64url');
    const forged = await handle(post(as('alice', { 'mcp-session-id': `AAAAAAAAAAAAAAAAAAAAAA.${payload}` }), call(1, 'facts')));
    expect(forged.status).toBe(404);
    expect(await forged.text()).not.toContain('<script>');
    // A genuine session still carries what the handshake established.
    const session = await initialize(handle, 'alice');
    const genuine = await (await handle(post(as('alice', { 'mcp-session-id': session }), call(2, 'facts')))).json();
    expect(JSON.parse(genuine.result.content[0].text)).toEqual({ version: V, info: { name: 'alice', version: '1' } });
  });

  it('a session id is bound to its principal: bob presenting alice\'s is not served on her session', async () => {
    const { mcp, handle } = server();
    mcp.tool('who', {}, (_a, ctx) => JSON.stringify(ctx.client.info ?? null));
    const session = await initialize(handle, 'alice');
    const response = await handle(post(as('bob', { 'mcp-session-id': session, 'mcp-protocol-version': V }), call(1, 'who')));
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('alice');
  });

  it('instances that share requestState.secret accept each other\'s session ids; another secret does not', async () => {
    const secret = 'x'.repeat(32);
    const a = server({ requestState: { secret } });
    const b = server({ requestState: { secret } });
    const c = server({ requestState: { secret: 'y'.repeat(32) } });
    for (const { mcp } of [a, b, c]) mcp.tool('ok', {}, () => 'ok');
    const session = await initialize(a.handle, 'alice');
    const headers = as('alice', { 'mcp-session-id': session, 'mcp-protocol-version': V });
    expect((await b.handle(post(headers, call(1, 'ok')))).status).toBe(200);
    expect((await c.handle(post(headers, call(1, 'ok')))).status).toBe(404);
  });

  it('bob cannot answer alice\'s pending 2025 elicitation, even knowing its id and her session id', async () => {
    const { mcp, handle } = server();
    mcp.tool('ask', {}, async (_a, ctx) => {
      const answer = await ctx.elicit({ message: 'Approve?', requestedSchema: { type: 'object', properties: { ok: { type: 'string' } } } });
      return `${answer.action}:${String(answer.content?.ok)}`;
    });
    const session = await initialize(handle, 'alice', { elicitation: {} });
    const aliceHeaders = as('alice', { 'mcp-session-id': session, 'mcp-protocol-version': V });
    const response = await handle(post(aliceHeaders, call(1, 'ask')));
    const reader = response.clone();
    const asked = await readUntil(reader, (text) => text.includes('elicitation/create'));
    const elicitationId = /"id":"(mm-[^"]+)"/.exec(asked)![1];
    const answer = (ok: string) => ({ jsonrpc: '2.0', id: elicitationId, result: { action: 'accept', content: { ok } } });
    const bobs = await handle(post(as('bob', { 'mcp-session-id': session, 'mcp-protocol-version': V }), answer('bob says yes')));
    expect(bobs.status).toBe(400);
    expect((await bobs.json()).error.code).toBe(-32600);
    const alices = await handle(post(aliceHeaders, answer('alice says yes')));
    expect(alices.status).toBe(202);
    expect(await response.text()).toContain('accept:alice says yes');
  });
});

describe('finding 5: fairness', () => {
  it('bob holding many waiting requests cannot take the whole gate: alice is still served', async () => {
    const { mcp, handle } = server({ maxConcurrency: 4, maxQueue: 2, queueTimeoutMs: 2_000 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    mcp.tool('hold', {}, () => gate.then(() => 'held'));
    mcp.tool('quick', {}, () => 'quick');
    const bobs = Array.from({ length: 8 }, (_, i) => handle(post(as('bob', { 'mcp-protocol-version': V }), call(i, 'hold'))));
    await sleep(10);
    const alice = await handle(post(as('alice', { 'mcp-protocol-version': V }), call('a', 'quick')));
    expect(alice.status).toBe(200);
    expect((await alice.json()).result.content[0].text).toBe('quick');
    release();
    const statuses = (await Promise.all(bobs)).map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(4); // bob's share (2 slots) and his 2 queued ones
    expect(statuses.filter((s) => s === 503)).toHaveLength(4);
  });

  it('a 2025 request without a session declared no capabilities: no elicitation/create is sent to it', async () => {
    const { mcp, handle } = server({ clientRequestTimeoutMs: 300 });
    mcp.tool('ask', {}, async (_a, ctx) => {
      const answer = await ctx.elicit({ message: 'Approve?', requestedSchema: { type: 'object', properties: {} } });
      return answer.action;
    });
    const response = await handle(post(as('alice', { 'mcp-protocol-version': V }), call(1, 'ask')));
    const text = await response.text();
    expect(text).not.toContain('"method":"elicitation/create"');
    expect(response.headers.get('content-type')).toBe('application/json'); // nothing was streamed first
    expect(text).toContain('did not declare the capability');
  });
});
