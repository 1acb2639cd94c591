/**
 * JSON vs SSE through the fetch handler: the smart switch, plain JSON mode, 2025 elicitation routed
 * back through a second POST, keep-alives, listen streams, and cancellation on disconnect.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createFetchHandler, type FetchHandlerOptions } from '../../src/transports/http/index.js';

const URL_ = 'http://127.0.0.1:3000/mcp';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const post = (body: object, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  new Request(URL_, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body), signal });
const callTool = (name: string, id: number | string = 1, progressToken?: string) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...(progressToken ? { _meta: { progressToken } } : {}) } });

/** Every `data:` payload of an SSE text, in order. */
const events = (text: string) => text.split('\n\n').filter((e) => e.includes('data: ')).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));

/** Reads an SSE body incrementally until `until` matches the text so far. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, until: (text: string) => boolean, state = { text: '' }) {
  const decoder = new TextDecoder();
  while (!until(state.text)) {
    const { done, value } = await reader.read();
    if (done) break;
    state.text += decoder.decode(value, { stream: true });
  }
  return state;
}

function server() {
  const mcp = new MiniMCP({ name: 'stream', version: '1', onError: () => {} });
  mcp.tool('quiet', { description: 'sends nothing' }, () => 'quiet result');
  mcp.tool('progress', { description: 'reports progress' }, async (_a, ctx) => {
    for (let i = 1; i <= 3; i++) ctx.progress(i, 3, `step ${i}`);
    ctx.log('info', 'almost done');
    return 'progress result';
  });
  mcp.tool('ask', { description: 'elicits' }, async (_a, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `hello ${String(answer.content?.name)} (${answer.action})`;
  });
  mcp.tool('slowly', { description: 'one event, then a pause' }, async (_a, ctx) => {
    ctx.progress(1);
    await sleep(120);
    return 'slow result';
  });
  return mcp;
}
const handler = (options: FetchHandlerOptions<unknown> = {}, mcp = server()) => createFetchHandler(mcp, options);

describe('streamable mode (default): JSON until the handler sends something', () => {
  it('answers application/json when the handler sends nothing', async () => {
    const response = await handler()(post(callTool('quiet')));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect((await response.json()).result.content[0].text).toBe('quiet result');
  });

  it('switches to text/event-stream on the first notification: progress, log, then the reply, then the end', async () => {
    const response = await handler()(post(callTool('progress', 9, 'tok-1')));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const text = await response.text();
    expect(text.startsWith('event: message\ndata: ')).toBe(true);
    const all = events(text);
    expect(all.map((m) => m.method ?? 'reply')).toEqual([
      'notifications/progress', 'notifications/progress', 'notifications/progress', 'notifications/message', 'reply',
    ]);
    expect(all[0].params).toEqual({ progressToken: 'tok-1', progress: 1, total: 3, message: 'step 1' });
    expect(all[4]).toMatchObject({ id: 9, result: { content: [{ type: 'text', text: 'progress result' }] } });
  });

  it('never streams when the client does not accept text/event-stream (notifications are dropped)', async () => {
    const response = await handler()(post(callTool('progress', 1, 't'), { accept: 'application/json' }));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect((await response.json()).result.content[0].text).toBe('progress result');
  });
});

describe("mode: 'json'", () => {
  it('never streams; progress and logs are silent', async () => {
    const response = await handler({ mode: 'json' })(post(callTool('progress', 1, 't')));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ id: 1, result: { content: [{ text: 'progress result' }] } });
  });

  it('2025 elicitation has no stream back: the tool reports an error result', async () => {
    const response = await handler({ mode: 'json' })(post(callTool('ask'), LEGACY));
    const reply = await response.json();
    expect(reply.result.isError).toBe(true);
  });
});

describe('2025: a server->client request answered by a second POST', () => {
  it('streams elicitation/create, takes the answer as 202, then ends the first stream with the tool result', async () => {
    const handle = handler();
    const init = await handle(post({
      jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '1' } },
    }));
    const session = { ...LEGACY, 'mcp-session-id': init.headers.get('mcp-session-id')! };
    expect(session['mcp-session-id']).toBeTruthy();

    const first = await handle(post(callTool('ask', 'call-1'), session));
    expect(first.headers.get('content-type')).toBe('text/event-stream');
    const reader = first.body!.getReader();
    const state = await readUntil(reader, (t) => t.includes('\n\n'));
    const [request] = events(state.text);
    expect(request).toMatchObject({ jsonrpc: '2.0', method: 'elicitation/create', params: { message: 'Name?' } });
    expect(typeof request.id).toBe('string');

    const answer = await handle(post({ jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { name: 'Ada' } } }, session));
    expect(answer.status).toBe(202);
    expect(await answer.text()).toBe('');

    await readUntil(reader, () => false, state); // to the end of the stream
    const last = events(state.text).at(-1);
    expect(last).toMatchObject({ id: 'call-1', result: { content: [{ type: 'text', text: 'hello Ada (accept)' }] } });
  });

  it('the session id carries the capabilities: a client without elicitation gets an error result, no request', async () => {
    const handle = handler();
    const init = await handle(post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }));
    const response = await handle(post(callTool('ask'), { ...LEGACY, 'mcp-session-id': init.headers.get('mcp-session-id')! }));
    expect(response.headers.get('content-type')).toBe('application/json');
    const reply = await response.json();
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0].text).toMatch(/capability/);
  });
});

describe('keep-alives and listen streams', () => {
  it('writes ": keepalive" comments on an open stream every keepAliveMs', async () => {
    const text = await (await handler({ keepAliveMs: 20 })(post(callTool('slowly', 1, 'p')))).text();
    expect(text.split(': keepalive\n\n').length - 1).toBeGreaterThanOrEqual(2);
    expect(events(text).at(-1).result.content[0].text).toBe('slow result');
  });

  it('2026 subscriptions/listen: ack first, notifications as they happen, until the client cancels', async () => {
    const mcp = server();
    const body = { jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: MODERN_META } };
    const response = await handler({ keepAliveMs: 10 }, mcp)(post(body, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' }));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const state = await readUntil(reader, (t) => t.includes('acknowledged'));
    mcp.tool('added', { description: 'new' }, () => 'x');
    await readUntil(reader, (t) => t.includes('list_changed') && t.includes(': keepalive'), state);
    const methods = events(state.text).map((m) => m.method);
    expect(methods).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
    await reader.cancel();
  });
});

describe('disconnect cancels the handler at once', () => {
  function waiting() {
    const mcp = new MiniMCP({ name: 'wait', version: '1', onError: () => {} });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const aborted = new Promise<number>((resolve) => {
      mcp.tool('wait', { description: 'waits for abort' }, (_a, ctx) => {
        ctx.progress(1); // streams only when the request carries a progressToken
        started();
        return new Promise((done) => ctx.signal.addEventListener('abort', () => (resolve(performance.now()), done('late'))));
      });
    });
    return { mcp, running, aborted };
  }

  it('JSON pending: aborting the request fires the handler signal within 100 ms', async () => {
    const { mcp, running, aborted } = waiting();
    const client = new AbortController();
    void createFetchHandler(mcp)(post(callTool('wait'), {}, client.signal));
    await running;
    const t0 = performance.now();
    client.abort();
    const latency = (await aborted) - t0;
    console.info(`[measure] fetch JSON disconnect -> handler abort: ${latency.toFixed(2)} ms`);
    expect(latency).toBeLessThan(100);
  });

  it('an answer given in the same turn never reads the request\'s own signal; one that waits follows it (and is cancelled by it)', async () => {
    const { mcp, running, aborted } = waiting();
    mcp.tool('at_once', {}, () => 'done');
    const handler = createFetchHandler(mcp);
    /** The request, counting reads of its signal (on Deno reading it makes it, and it fires after every response). */
    const counted = (request: Request, reads: { n: number }) => {
      const real = request.signal;
      Object.defineProperty(request, 'signal', { get: () => (reads.n++, real) });
      return request;
    };
    const quick = { n: 0 };
    const answer = await (await handler(counted(post(callTool('at_once')), quick))).json();
    expect(answer.result.content[0].text).toBe('done');
    expect(quick.n).toBe(0);
    const slow = { n: 0 };
    const client = new AbortController();
    void handler(counted(post(callTool('wait'), {}, client.signal), slow));
    await running;
    expect(slow.n).toBeGreaterThan(0);
    client.abort();
    await aborted;
  });

  it('SSE open: cancelling the response body fires the handler signal within 100 ms', async () => {
    const { mcp, running, aborted } = waiting();
    const response = await createFetchHandler(mcp)(post(callTool('wait', 1, 'p')));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    await running;
    const t0 = performance.now();
    await response.body!.cancel();
    const latency = (await aborted) - t0;
    console.info(`[measure] fetch SSE cancel -> handler abort: ${latency.toFixed(2)} ms`);
    expect(latency).toBeLessThan(100);
  });
});
