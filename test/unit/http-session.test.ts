/** 2025 sessions without server state: minting on initialize, parsing back, malformed ids, cancellation by session. */
import { describe, expect, it } from 'vitest';
import { loadCrypto, Signer } from '../../src/signing/request-state.js';
import { SessionCodec } from '../../src/signing/session-ids.js';
import { MiniMCP } from '../../src/index.js';
import { createFetchHandler } from '../../src/transports/http/index.js';

const URL_ = 'http://localhost/mcp';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const post = (body: object, headers: Record<string, string> = {}) =>
  new Request(URL_, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
const initialize = (capabilities: object = { elicitation: { url: {} }, sampling: {} }, id: number | string = 0) => ({
  jsonrpc: '2.0', id, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'tester', version: '9.9' } },
});

function server() {
  const mcp = new MiniMCP({ name: 'session', version: '1', onError: () => {} });
  mcp.tool('client', { description: 'what the server knows about the client' }, (_a, ctx) =>
    JSON.stringify({ caps: ctx.client.capabilities, info: ctx.client.info, version: ctx.protocolVersion }));
  return mcp;
}
const whoAmI = async (handle: ReturnType<typeof createFetchHandler>, headers: Record<string, string>) => {
  const reply = await (await handle(post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'client' } }, headers))).json();
  return JSON.parse(reply.result.content[0].text);
};

describe('minting Mcp-Session-Id', () => {
  it('is set on a successful initialize: visible ASCII, under 1 KB, random per session', async () => {
    const handle = createFetchHandler(server());
    const a = (await handle(post(initialize()))).headers.get('mcp-session-id')!;
    const b = (await handle(post(initialize()))).headers.get('mcp-session-id')!;
    for (const id of [a, b]) {
      expect(id).toMatch(VISIBLE_ASCII);
      expect(id.length).toBeLessThanOrEqual(1024);
    }
    expect(a.split('.')[0]).toMatch(/^[A-Za-z0-9_-]{22}$/); // 128 random bits
    expect(a.split('.')[0]).not.toBe(b.split('.')[0]);
  });

  it('carries version, capabilities and client info back into later requests', async () => {
    const handle = createFetchHandler(server());
    const id = (await handle(post(initialize()))).headers.get('mcp-session-id')!;
    const facts = await whoAmI(handle, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });
    expect(facts).toEqual({ caps: { elicitation: { url: {} }, sampling: {} }, info: { name: 'tester', version: '9.9' }, version: '2025-06-18' });
  });

  it('is never minted for 2026 requests, errors, or other methods', async () => {
    const handle = createFetchHandler(server());
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const modernHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };
    const discover = await handle(post({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }, modernHeaders));
    expect(discover.status).toBe(200);
    expect(discover.headers.get('mcp-session-id')).toBeNull();
    const modernInit = await handle(post({ ...initialize(), params: { ...initialize().params, _meta: meta } }, { ...modernHeaders, 'mcp-method': 'initialize' }));
    expect(modernInit.status).toBe(404);
    expect(modernInit.headers.get('mcp-session-id')).toBeNull();
    const badInit = await handle(post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: 'nope' }));
    expect(badInit.headers.get('mcp-session-id')).toBeNull();
    const ping = await handle(post({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    expect(ping.headers.get('mcp-session-id')).toBeNull();
  });

  it('stays under 1 KB with huge capabilities, keeping what capability checks need', async () => {
    const handle = createFetchHandler(server());
    const capabilities = {
      elicitation: { url: {}, form: {} }, sampling: { tools: {} }, roots: { listChanged: true },
      experimental: { blob: { data: 'x'.repeat(5000) } },
    };
    const init = initialize(capabilities);
    init.params.clientInfo = { name: 'n'.repeat(200), version: '1' };
    const id = (await handle(post(init))).headers.get('mcp-session-id')!;
    expect(id.length).toBeLessThanOrEqual(1024);
    expect(id).toMatch(VISIBLE_ASCII);
    const facts = await whoAmI(handle, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });
    expect(facts.version).toBe('2025-06-18');
    expect(facts.caps).toMatchObject({ elicitation: { url: {}, form: {} }, sampling: { tools: {} }, roots: { listChanged: true } });
    expect(facts.caps).not.toHaveProperty('experimental.blob.data');
  });

  it('round-trips non-ASCII client names', async () => {
    const handle = createFetchHandler(server());
    const init = initialize({});
    init.params.clientInfo = { name: 'Zoë 🤖', version: '1' };
    const id = (await handle(post(init))).headers.get('mcp-session-id')!;
    expect(id).toMatch(VISIBLE_ASCII);
    expect((await whoAmI(handle, { 'mcp-session-id': id })).info).toEqual({ name: 'Zoë 🤖', version: '1' });
  });

  it('gives a fresh Connection object each time (the core writes to it)', async () => {
    await loadCrypto();
    const codec = new SessionCodec(new Signer('s'.repeat(32)));
    const id = codec.mint({ protocolVersion: '2025-11-25', clientCapabilities: {} }, 'alice');
    const a = codec.open(id, 'alice')!;
    a.logLevel = 'error';
    expect(codec.open(id, 'alice')!.logLevel).toBeUndefined();
    expect(codec.open(id, 'bob')).toBeUndefined();
  });
});

describe('malformed session ids', () => {
  const malformed = ['garbage', 'abc.!!!', `abc.${btoa('[1,2]')}`, `abc.${btoa('{"v":1,"c":[],"i":"x"}')}`, 'a.b.c', `x.${'A'.repeat(4000)}`, '.'];
  for (const id of malformed) {
    it(`"${id.slice(0, 30)}" names no session: 404, never a crash`, async () => {
      const handle = createFetchHandler(server());
      const response = await handle(post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'client' } }, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }));
      expect(response.status).toBe(404);
      expect((await response.json()).error).toEqual({ code: -32600, message: 'Session not found: start a new one with initialize' });
    });
  }
});

describe('cancellation by session', () => {
  it('notifications/cancelled on a second POST with the same session cancels the running request', async () => {
    const mcp = new MiniMCP({ name: 'cancel', version: '1', onError: () => {} });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let cancelled = false;
    mcp.tool('wait', { description: 'waits' }, (_a, ctx) => {
      started();
      return new Promise((resolve) => ctx.signal.addEventListener('abort', () => ((cancelled = true), resolve('late'))));
    });
    const handle = createFetchHandler(mcp);
    const session = { 'mcp-session-id': (await handle(post(initialize({})))).headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    const pending = handle(post({ jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'wait' } }, session));
    await running;
    const otherSession = (await handle(post(initialize({})))).headers.get('mcp-session-id')!;
    const other = await handle(post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 42 } }, { ...session, 'mcp-session-id': otherSession }));
    expect(other.status).toBe(202);
    expect(cancelled).toBe(false); // another session's id 42 is not ours
    const cancel = await handle(post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 42 } }, session));
    expect(cancel.status).toBe(202);
    const answer = await pending;
    expect(cancelled).toBe(true);
    expect(answer.status).toBe(202); // a cancelled request gets no JSON-RPC answer
    expect(await answer.text()).toBe('');
  });

  it('without a session, one client cannot cancel another client\'s request that has the same id', async () => {
    const mcp = new MiniMCP({ name: 'cancel', version: '1', onError: () => {} });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let release!: (text: string) => void;
    let cancelled = false;
    mcp.tool('wait', { description: 'waits' }, (_a, ctx) => {
      started();
      ctx.signal.addEventListener('abort', () => (cancelled = true));
      return new Promise<string>((resolve) => (release = resolve));
    });
    const handle = createFetchHandler(mcp);
    const headers = { 'mcp-protocol-version': '2025-06-18' };
    const pending = handle(post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait' } }, headers));
    await running;
    const stranger = await handle(post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, headers));
    expect(stranger.status).toBe(202);
    await new Promise((r) => setTimeout(r, 5));
    expect(cancelled).toBe(false);
    release('done');
    const answer = await (await pending).json();
    expect(answer.result.content[0].text).toBe('done');
  });
});
