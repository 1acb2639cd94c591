/** Asking the client: 2025 requests on the stream (routed back by id), 2026 MRTR, and 2026 subscriptions/listen. */
import { describe, expect, it } from 'vitest';
import { MiniMCP, type Connection } from '../../src/index.js';

const V = '2026-07-28';
const meta = (caps: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': caps,
});
const base = { name: 'ask', version: '1.0.0', onError: () => {} };
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const schema = { type: 'object', properties: { n: { type: 'string' } } };

function server(idleTimeoutMs = 1000) {
  const mcp = new MiniMCP({ ...base, idleTimeoutMs });
  mcp.tool('ask', {}, async (_a, ctx) => JSON.stringify(await ctx.elicit({ message: 'Name?', requestedSchema: schema })));
  mcp.tool('two', {}, async (_a, ctx) => {
    const first = await ctx.elicit({ message: 'Name?', requestedSchema: schema });
    const roots = await ctx.listRoots({ key: 'roots' });
    return JSON.stringify([first, roots]);
  });
  mcp.tool('sample', {}, async (_a, ctx) => JSON.stringify(await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 })));
  mcp.prompt('askp', {}, async (_a, ctx) => `name=${((await ctx.elicit({ message: 'Name?', requestedSchema: schema })).content as any)?.n}`);
  return mcp;
}

async function initialized(mcp: MiniMCP, capabilities: Record<string, unknown>): Promise<Connection> {
  const connection: Connection = { id: 'c1' };
  await mcp.handle(req('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } }, 0), { connection });
  return connection;
}

describe('2025: a request on the stream, answered by a separate client response', () => {
  it('sends elicitation/create with a unique id and resumes with the client answer', async () => {
    const mcp = server();
    const connection = await initialized(mcp, { elicitation: {} });
    const sent: any[] = [];
    const pending = mcp.dispatch(req('tools/call', { name: 'ask' }), { connection, send: (m) => sent.push(m) });
    await sleep(5);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toEqual({ jsonrpc: '2.0', id: expect.stringMatching(/^mm-[0-9a-f-]{36}$/), method: 'elicitation/create', params: { message: 'Name?', requestedSchema: schema } });
    const ack = await mcp.dispatch({ jsonrpc: '2.0', id: sent[0].id, result: { action: 'accept', content: { n: 'Bo' } } }, { connection });
    expect(ack).toEqual({ reply: undefined, status: 202 });
    expect((await pending).reply).toEqual({
      jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{"action":"accept","content":{"n":"Bo"}}' }] },
    });
    // The same answer again finds nobody waiting.
    expect(((await mcp.dispatch({ jsonrpc: '2.0', id: sent[0].id, result: {} }, { connection })).reply as any).error.code).toBe(-32600);
  });

  it('the idle timer is paused while the client answers', async () => {
    const mcp = server(20);
    const connection = await initialized(mcp, { elicitation: {} });
    const sent: any[] = [];
    const pending = mcp.dispatch(req('tools/call', { name: 'ask' }), { connection, send: (m) => sent.push(m) });
    await sleep(60);
    await mcp.dispatch({ jsonrpc: '2.0', id: sent[0].id, result: { action: 'decline' } }, { connection });
    expect(((await pending).reply as any).result).toEqual({ content: [{ type: 'text', text: '{"action":"decline"}' }] });
  });

  it('a client error answer makes the tool an isError result', async () => {
    const mcp = server();
    const connection = await initialized(mcp, { elicitation: {} });
    const sent: any[] = [];
    const pending = mcp.dispatch(req('tools/call', { name: 'ask' }), { connection, send: (m) => sent.push(m) });
    await sleep(5);
    await mcp.dispatch({ jsonrpc: '2.0', id: sent[0].id, error: { code: -1, message: 'user closed the dialog' } }, { connection });
    expect(((await pending).reply as any).result).toEqual({
      content: [{ type: 'text', text: 'The client answered with an error: user closed the dialog' }], isError: true,
    });
  });

  it('refuses a request the client did not declare a capability for, without sending it', async () => {
    const mcp = server();
    const connection = await initialized(mcp, { roots: {} });
    const sent: any[] = [];
    const r = ((await mcp.dispatch(req('tools/call', { name: 'sample' }), { connection, send: (m) => sent.push(m) })).reply as any).result;
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/did not declare the capability sampling\/createMessage needs/);
    expect(sent).toEqual([]);
  });

  it('without a channel back to the client the ask fails clearly', async () => {
    const mcp = server();
    const connection = await initialized(mcp, { elicitation: {} });
    const r = ((await mcp.dispatch(req('tools/call', { name: 'ask' }), { connection })).reply as any).result;
    expect(r).toEqual({ content: [{ type: 'text', text: 'Cannot send elicitation/create: this transport has no stream back to the client' }], isError: true });
  });

  it('a prompt can ask too', async () => {
    const mcp = server();
    const connection = await initialized(mcp, { elicitation: {} });
    const sent: any[] = [];
    const pending = mcp.dispatch(req('prompts/get', { name: 'askp' }), { connection, send: (m) => sent.push(m) });
    await sleep(5);
    await mcp.dispatch({ jsonrpc: '2.0', id: sent[0].id, result: { action: 'accept', content: { n: 'Al' } } }, { connection });
    expect(((await pending).reply as any).result).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'name=Al' } }] });
  });

  it('cancelling the request while it waits sends no reply and frees the waiter', async () => {
    const mcp = server();
    const connection = await initialized(mcp, { elicitation: {} });
    const sent: any[] = [];
    const pending = mcp.dispatch(req('tools/call', { name: 'ask' }, 'c'), { connection, send: (m) => sent.push(m) });
    await sleep(5);
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c' } }, { connection });
    expect(await pending).toEqual({ reply: undefined, status: 202 });
    expect(((await mcp.dispatch({ jsonrpc: '2.0', id: sent[0].id, result: { action: 'accept' } }, { connection })).reply as any).error.code).toBe(-32600);
  });
});

describe('2026: MRTR (input_required and retries)', () => {
  it('answers input_required with the input requests and a signed requestState', async () => {
    const outcome = await server().dispatch(req('tools/call', { name: 'ask', _meta: meta({ elicitation: {} }) }));
    expect(outcome.status).toBe(200);
    const result = (outcome.reply as any).result;
    expect(result).toEqual({
      resultType: 'input_required',
      inputRequests: { 'input-1': { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: schema } } },
      requestState: expect.stringMatching(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
    });
    expect(result.ttlMs).toBeUndefined();
  });

  it('completes on the retry with inputResponses, round by round, keys stable', async () => {
    const mcp = server();
    const caps = { elicitation: {}, roots: {} };
    const r1 = ((await mcp.handle(req('tools/call', { name: 'two', _meta: meta(caps) }))) as any).result;
    expect(Object.keys(r1.inputRequests)).toEqual(['input-1']);
    const r2 = ((await mcp.handle(req('tools/call', {
      name: 'two', _meta: meta(caps), requestState: r1.requestState, inputResponses: { 'input-1': { action: 'accept', content: { n: 'X' } } },
    }, 2))) as any).result;
    expect(r2.resultType).toBe('input_required');
    expect(r2.inputRequests).toEqual({ roots: { method: 'roots/list', params: {} } });
    const r3 = ((await mcp.handle(req('tools/call', {
      name: 'two', _meta: meta(caps), requestState: r2.requestState, inputResponses: { roots: { roots: [{ uri: 'file:///w' }] } },
    }, 3))) as any).result;
    expect(r3).toEqual({
      content: [{ type: 'text', text: '[{"action":"accept","content":{"n":"X"}},{"roots":[{"uri":"file:///w"}]}]' }], resultType: 'complete',
    });
  });

  it('unknown extra inputResponses keys are ignored', async () => {
    const r = ((await server().handle(req('tools/call', {
      name: 'ask', _meta: meta({ elicitation: {} }), inputResponses: { 'input-1': { action: 'cancel' }, extra: { x: 1 } },
    }))) as any).result;
    expect(r).toEqual({ content: [{ type: 'text', text: '{"action":"cancel"}' }], resultType: 'complete' });
  });

  it('a tampered, foreign or malformed requestState is -32602', async () => {
    const mcp = server();
    const caps = { elicitation: {}, roots: {} };
    const r1 = ((await mcp.handle(req('tools/call', { name: 'two', _meta: meta(caps) }))) as any).result;
    const [body, mac] = r1.requestState.split('.');
    const tamperedBody = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), p: 'admin' })).toString('base64url');
    const invalid = { code: -32602, message: 'Invalid requestState: it was altered, has expired or belongs to another request' };
    for (const state of [`${tamperedBody}.${mac}`, 'abc', 'a.b', 42, `${body}.${mac}x`]) {
      expect(((await mcp.handle(req('tools/call', { name: 'two', _meta: meta(caps), requestState: state }))) as any).error).toEqual(invalid);
    }
    // Valid state, but for another method / other params.
    expect(((await mcp.handle(req('tools/call', { name: 'ask', _meta: meta(caps), requestState: r1.requestState }))) as any).error).toEqual(invalid);
    // Another server (another secret) does not accept it.
    expect(((await server().handle(req('tools/call', { name: 'two', _meta: meta(caps), requestState: r1.requestState }))) as any).error).toEqual(invalid);
  });

  it('a shared secret lets another instance accept the state', async () => {
    const make = () => {
      const m = new MiniMCP({ ...base, requestState: { secret: 'shared-secret-0123456789abcdef-0123456789' } });
      m.tool('ask', {}, async (_a, ctx) => String((await ctx.elicit({ message: 'm', requestedSchema: schema })).action));
      return m;
    };
    const r1 = ((await make().handle(req('tools/call', { name: 'ask', _meta: meta({ elicitation: {} }) }))) as any).result;
    const r2 = ((await make().handle(req('tools/call', {
      name: 'ask', _meta: meta({ elicitation: {} }), requestState: r1.requestState, inputResponses: { 'input-1': { action: 'accept' } },
    }))) as any).result;
    expect(r2).toEqual({ content: [{ type: 'text', text: 'accept' }], resultType: 'complete' });
  });

  it('a state is bound to the principal and expires after requestState.ttlMs', async () => {
    const make = (ttlMs?: number) => {
      const m = new MiniMCP<{ user: string }>({
        ...base, requestState: { secret: 's'.repeat(32), ...(ttlMs ? { ttlMs } : {}) }, principal: (scope) => scope?.user,
      });
      m.tool('ask', {}, async (_a, ctx) => String((await ctx.elicit({ message: 'm', requestedSchema: schema })).action));
      return m;
    };
    const invalid = { code: -32602, message: 'Invalid requestState: it was altered, has expired or belongs to another request' };
    const mcp = make();
    const first = ((await mcp.handle(req('tools/call', { name: 'ask', _meta: meta({ elicitation: {} }) }), { scope: { user: 'ann' } })) as any).result;
    const retry = (user: string, m = mcp, state = first.requestState) => m.handle(req('tools/call', {
      name: 'ask', _meta: meta({ elicitation: {} }), requestState: state, inputResponses: { 'input-1': { action: 'accept' } },
    }), { scope: { user } });
    expect(((await retry('bob')) as any).error).toEqual(invalid);
    expect(((await retry('ann')) as any).result).toEqual({ content: [{ type: 'text', text: 'accept' }], resultType: 'complete' });

    const short = make(1);
    const state = ((await short.handle(req('tools/call', { name: 'ask', _meta: meta({ elicitation: {} }) }), { scope: { user: 'ann' } })) as any)
      .result.requestState;
    await sleep(5);
    expect(((await retry('ann', short, state)) as any).error).toEqual(invalid);
  });

  it('malformed inputResponses are -32602', async () => {
    const mcp = server();
    expect(((await mcp.handle(req('tools/call', { name: 'ask', _meta: meta({ elicitation: {} }), inputResponses: [1] }))) as any).error)
      .toEqual({ code: -32602, message: 'params.inputResponses must be an object' });
    expect(((await mcp.handle(req('tools/call', { name: 'ask', _meta: meta({ elicitation: {} }), inputResponses: { 'input-1': { action: 'maybe' } } }))) as any).error)
      .toEqual({ code: -32602, message: 'Malformed inputResponses["input-1"] for elicitation/create' });
  });

  it('an input request the client cannot answer is 400 -32021 with requiredCapabilities', async () => {
    const outcome = await server().dispatch(req('tools/call', { name: 'ask', _meta: meta({}) }));
    expect(outcome).toEqual({
      status: 400,
      reply: {
        jsonrpc: '2.0', id: 1,
        error: { code: -32021, message: 'This request needs the client capability elicitation', data: { requiredCapabilities: { elicitation: {} } } },
      },
    });
  });

  it('prompts can use MRTR too', async () => {
    const mcp = server();
    const r1 = ((await mcp.handle(req('prompts/get', { name: 'askp', _meta: meta({ elicitation: {} }) }))) as any).result;
    expect(r1.resultType).toBe('input_required');
    const r2 = ((await mcp.handle(req('prompts/get', {
      name: 'askp', _meta: meta({ elicitation: {} }), requestState: r1.requestState, inputResponses: { 'input-1': { action: 'accept', content: { n: 'Q' } } },
    }))) as any).result;
    expect(r2).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'name=Q' } }], resultType: 'complete' });
  });
});

describe('2026: subscriptions/listen', () => {
  it('acknowledges the honoured filter, forwards tagged events, ends with a tagged result on cancel', async () => {
    const mcp = new MiniMCP({ ...base, idleTimeoutMs: 10, maxConcurrency: 1, maxQueue: 1 });
    mcp.resource('test://a', {}, () => 'a');
    const sent: any[] = [];
    const listening = mcp.dispatch(req('subscriptions/listen', {
      _meta: meta(), notifications: { toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['test://a'], unknown: true },
    }, 'L'), { send: (m) => sent.push(m) });
    await sleep(30); // longer than the idle timeout: a listen stream has none
    mcp.tool('t', {}, () => 'x');
    mcp.prompt('p', {}, () => 'x'); // not asked for
    mcp.notifyResourceUpdated('test://a');
    mcp.notifyResourceUpdated('test://other');
    // It holds no concurrency slot.
    expect((await mcp.dispatch(req('tools/list', { _meta: meta() }, 2))).status).toBe(200);
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L' } });
    const tag = { 'io.modelcontextprotocol/subscriptionId': 'L' };
    expect(await listening).toEqual({ status: 200, reply: { jsonrpc: '2.0', id: 'L', result: { _meta: tag, resultType: 'complete' } } });
    expect(sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: tag, notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] } } },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: tag } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://a', _meta: tag } },
    ]);
    // Nothing more after the end.
    mcp.tool('t2', {}, () => 'x');
    expect(sent).toHaveLength(3);
  });

  it('without a streaming channel, or with a bad filter, it is an error', async () => {
    const mcp = new MiniMCP(base);
    expect(((await mcp.handle(req('subscriptions/listen', { _meta: meta(), notifications: {} }))) as any).error)
      .toEqual({ code: -32603, message: 'subscriptions/listen needs a streaming transport' });
    expect(((await mcp.handle(req('subscriptions/listen', { _meta: meta(), notifications: 'all' }), { send: () => {} })) as any).error)
      .toEqual({ code: -32602, message: 'params.notifications must be an object' });
  });

  it('past maxStreams a new stream is refused at once with 503 and the freed place can be reused', async () => {
    const mcp = new MiniMCP({ ...base, maxStreams: 2 });
    mcp.tool('t', {}, () => 'x');
    const listen = (id: string) => mcp.dispatch(req('subscriptions/listen', { _meta: meta(), notifications: { toolsListChanged: true } }, id), { send: () => {} });
    const a = listen('a');
    const b = listen('b');
    const refused = await listen('c');
    expect(refused).toEqual({ status: 503, reply: { jsonrpc: '2.0', id: 'c', error: { code: -32603, message: expect.stringContaining('overloaded') } } });
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a' } });
    expect((await a).status).toBe(200);
    const d = listen('d');
    await sleep(5);
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'b' } });
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'd' } });
    expect([(await b).status, (await d).status]).toEqual([200, 200]);
  });

  it('is a 2026-only method', async () => {
    expect(((await new MiniMCP(base).handle(req('subscriptions/listen', { notifications: {} }))) as any).error.code).toBe(-32601);
  });
});
