/**
 * 2025 SSE resumability (SEP-1699): priming events, event ids, ctx.closeStream() and GET with
 * Last-Event-ID, through the fetch handler and through real node:http on 127.0.0.1; the bounded
 * event store; and the official clients resuming on their own.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode, McpError, MiniMCP } from '../../src/index.js';
import { EventStore, parseEventId, type StreamReader } from '../../src/state/replay.js';
import { createFetchHandler, type FetchHandlerOptions } from '../../src/transports/http/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';

const URL_ = 'http://127.0.0.1:3000/mcp';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const MODERN = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const post = (body: object, headers: Record<string, string> = {}) =>
  new Request(URL_, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
const get = (headers: Record<string, string>) =>
  new Request(URL_, { method: 'GET', headers: { accept: 'text/event-stream', ...LEGACY, ...headers } });
const callTool = (name: string, id: number | string = 1, extra: object = {}) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: { progressToken: 'p' }, ...extra } });

interface SseEvent { id?: string; retry?: number; data: string }
/** The events of an SSE text (comments skipped), with their fields. */
function parse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    const event: SseEvent = { data: '' };
    let fields = 0;
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const [name, value] = [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
      fields++;
      if (name === 'id') event.id = value;
      else if (name === 'retry') event.retry = Number(value);
      else if (name === 'data') event.data = value;
    }
    if (fields > 0) out.push(event);
  }
  return out;
}
const messages = (text: string) => parse(text).filter((e) => e.data !== '').map((e) => JSON.parse(e.data));

/** Reads an SSE body until `until` matches the text so far (or the body ends). */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, until: (text: string) => boolean, state = { text: '', done: false }) {
  const decoder = new TextDecoder();
  while (!until(state.text)) {
    const { done, value } = await reader.read();
    if (done) {
      state.done = true;
      break;
    }
    state.text += decoder.decode(value, { stream: true });
  }
  return state;
}

/** A gate a test opens to let a handler continue. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

/** A server whose `poll` tool closes its stream after one progress event, then waits for `release`. */
function server() {
  const mcp = new MiniMCP({ name: 'resume', version: '1', onError: () => {} });
  const state = { release: gate(), aborted: false, finished: false };
  mcp.tool('progress', { description: 'two progress events, then a result' }, (_a, ctx) => {
    ctx.progress(1);
    ctx.progress(2);
    return 'progress result';
  });
  mcp.tool('poll', { description: 'closes its stream mid-call' }, async (_a, ctx) => {
    ctx.signal.addEventListener('abort', () => void (state.aborted ||= !state.finished)); // it also fires at the end
    ctx.progress(1);
    ctx.closeStream();
    await state.release.opened;
    ctx.progress(2);
    state.finished = true;
    return 'polled result';
  });
  mcp.tool('close-first', { description: 'closes before sending anything' }, async (_a, ctx) => {
    ctx.closeStream();
    await sleep(30);
    return 'late result';
  });
  mcp.prompt('failing', { description: 'logs, then fails with a protocol error' }, (_a, ctx) => {
    ctx.log('info', 'about to fail');
    throw new McpError(ErrorCode.InvalidParams, 'this prompt always fails');
  });
  return { mcp, state };
}

async function initialize(handle: (r: Request) => Promise<Response>, headers: Record<string, string> = {}) {
  const init = await handle(post({
    jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  }, headers));
  const sessionId = init.headers.get('mcp-session-id');
  expect(sessionId).toBeTruthy();
  return { ...LEGACY, 'mcp-session-id': sessionId! };
}

function setup(options: FetchHandlerOptions<unknown> = {}) {
  const { mcp, state } = server();
  const handle = createFetchHandler(mcp, options);
  return { handle, state };
}

describe('event ids on 2025 streams', () => {
  it('sends a priming event (id, retry, empty data) first, then numbered events, the reply last', async () => {
    const { handle } = setup({ sseRetryMs: 250 });
    const session = await initialize(handle);
    const response = await handle(post(callTool('progress'), session));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    const events = parse(text);
    const [priming] = events;
    expect(text.startsWith(`id: ${priming!.id}\nretry: 250\ndata:\n\n`)).toBe(true);
    const stream = parseEventId(priming!.id!)!;
    expect(stream.streamId).toMatch(/^[0-9a-f]{32}$/);
    expect(events.map((e) => e.id)).toEqual([0, 1, 2, 3].map((n) => `${stream.streamId}-${n}`));
    expect(messages(text).map((m) => m.method ?? m.result.content[0].text))
      .toEqual(['notifications/progress', 'notifications/progress', 'progress result']);
  });

  it('also with a 2025 version header and no session; every stream gets its own random id', async () => {
    const { handle } = setup();
    const ids = [];
    for (let i = 0; i < 2; i++) {
      const [priming] = parse(await (await handle(post(callTool('progress'), LEGACY))).text());
      expect(priming).toMatchObject({ data: '', retry: 1000 });
      ids.push(parseEventId(priming!.id!)!.streamId);
    }
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('2026 streams and requests without any era header get no ids, no priming and no retry', async () => {
    const { handle } = setup();
    const modern = await (await handle(post(callTool('progress', 1, { _meta: { ...MODERN_META, progressToken: 'p' } }),
      { ...MODERN, 'mcp-name': 'progress' }))).text();
    const bare = await (await handle(post(callTool('progress')))).text();
    for (const text of [modern, bare]) {
      expect(text.startsWith('event: message\ndata: ')).toBe(true);
      expect(text).not.toMatch(/^(id|retry):/m);
      expect(messages(text).at(-1).result.content[0].text).toBe('progress result');
    }
  });

  it('2026: ctx.closeStream() is a no-op, the result comes on the POST', async () => {
    const { handle } = setup();
    const response = await handle(post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'close-first', arguments: {}, _meta: MODERN_META } },
      { ...MODERN, 'mcp-name': 'close-first' }));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect((await response.json()).result.content[0].text).toBe('late result');
  });
});

describe('ctx.closeStream() and GET with Last-Event-ID', () => {
  it('ends the POST stream after what was sent, without cancelling the handler', async () => {
    const { handle, state } = setup();
    const session = await initialize(handle);
    const text = await (await handle(post(callTool('poll', 7), session))).text(); // resolves only when the stream ends
    const events = parse(text);
    expect(events.map((e) => parseEventId(e.id!)!.seq)).toEqual([0, 1]);
    expect(messages(text).map((m) => m.method)).toEqual(['notifications/progress']);
    await sleep(20);
    expect(state).toMatchObject({ aborted: false, finished: false });
    state.release.open();
    await sleep(20);
    expect(state).toMatchObject({ aborted: false, finished: true });
  });

  it('once closed, the POST connection going away (its request signal aborting) no longer cancels the handler', async () => {
    const { handle, state } = setup();
    const session = await initialize(handle);
    const client = new AbortController();
    const request = new Request(URL_, { method: 'POST', headers: { ...HEADERS, ...session }, body: JSON.stringify(callTool('poll', 8)), signal: client.signal });
    await (await handle(request)).text();
    client.abort(); // some runtimes abort request.signal when the connection closes
    await sleep(20);
    expect(state.aborted).toBe(false);
    state.release.open();
    await sleep(20);
    expect(state).toMatchObject({ aborted: false, finished: true });
  });

  it('a handler that closes before sending anything still sends the priming event first', async () => {
    const { handle } = setup({ sseRetryMs: 40 });
    const session = await initialize(handle);
    const response = await handle(post(callTool('close-first'), session));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = parse(await response.text());
    expect(events).toEqual([{ id: expect.stringMatching(/-0$/), retry: 40, data: '' }]);
    const resumed = await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': events[0]!.id! }));
    expect(resumed.status).toBe(200);
    expect(messages(await resumed.text())).toMatchObject([{ id: 1, result: { content: [{ text: 'late result' }] } }]);
  });

  it('GET replays what came after the close (later events, the final reply), then ends; the ids go on from the POST', async () => {
    const { handle, state } = setup();
    const session = await initialize(handle);
    const delivered = parse(await (await handle(post(callTool('poll', 'call-1'), session))).text());
    const [priming] = delivered;
    state.release.open();
    await sleep(20); // the handler finishes while nobody is connected
    // Event 1 (progress 1) went out on the POST before the close: resuming after it replays what came after.
    const response = await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': delivered.at(-1)!.id! }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    const streamId = parseEventId(priming!.id!)!.streamId;
    expect(parse(text).filter((e) => e.data).map((e) => e.id)).toEqual([2, 3].map((n) => `${streamId}-${n}`));
    expect(messages(text)).toMatchObject([
      { method: 'notifications/progress', params: { progress: 2 } },
      { id: 'call-1', result: { content: [{ text: 'polled result' }] } },
    ]);
    // A client that read only the priming event gets event 1 too: the store has every event (issue 24).
    const fromPriming = await (await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': priming!.id! }))).text();
    expect(parse(fromPriming).filter((e) => e.data).map((e) => e.id)).toEqual([1, 2, 3].map((n) => `${streamId}-${n}`));
  });

  it('GET attached before the reply receives later events live, and a second resume picks up after its last id', async () => {
    const { handle, state } = setup({ keepAliveMs: 10 });
    const session = await initialize(handle);
    const text = await (await handle(post(callTool('poll', 2), session))).text();
    const last = parse(text).at(-1)!.id!; // the progress event the POST delivered
    const first = await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': last }));
    const reader = first.body!.getReader();
    const live = await readUntil(reader, (t) => t.includes(': keepalive'));
    expect(messages(live.text)).toEqual([]); // nothing missed yet, the GET waits (with keep-alives)
    await reader.cancel(); // the client drops the GET; the request goes on
    await sleep(10);
    state.release.open();
    await sleep(20);
    expect(state.aborted).toBe(false);
    const second = await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': last }));
    expect(messages(await second.text()).map((m) => m.method ?? m.result.content[0].text)).toEqual(['notifications/progress', 'polled result']);
  });

  it('a live GET gets the events as they happen and ends after the reply', async () => {
    const { handle, state } = setup();
    const session = await initialize(handle);
    const delivered = parse(await (await handle(post(callTool('poll', 3), session))).text());
    const response = await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': delivered.at(-1)!.id! }));
    const reader = response.body!.getReader();
    const seen = await readUntil(reader, (t) => t.includes('retry: 1000\n\n')); // the headers and a retry, nothing to replay yet
    expect(messages(seen.text)).toEqual([]);
    state.release.open();
    await readUntil(reader, () => false, seen);
    expect(seen.done).toBe(true);
    expect(messages(seen.text).map((m) => m.params?.progress ?? m.result.content[0].text)).toEqual([2, 'polled result']);
  });

  it('404 for another session, a missing session, an unknown stream or a foreign id', async () => {
    const { handle, state } = setup();
    const session = await initialize(handle);
    const other = await initialize(handle);
    const [priming] = parse(await (await handle(post(callTool('poll'), session))).text());
    const id = priming!.id!;
    const cases: Record<string, string>[] = [
      { 'mcp-session-id': other['mcp-session-id'], 'last-event-id': id },
      { 'last-event-id': id },
      { 'mcp-session-id': session['mcp-session-id'], 'last-event-id': `${'0'.repeat(32)}-0` },
      { 'mcp-session-id': session['mcp-session-id'], 'last-event-id': 'not-ours' },
    ];
    for (const headers of cases) {
      const response = await handle(get(headers));
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
    const right = await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': id }));
    expect(right.status).toBe(200);
    state.release.open();
    expect(messages(await right.text()).at(-1).result.content[0].text).toBe('polled result');
  });

  it('404 once the finished stream has outlived its TTL (30 s)', async () => {
    const { handle, state } = setup();
    const session = await initialize(handle);
    const [priming] = parse(await (await handle(post(callTool('poll'), session))).text());
    state.release.open();
    await sleep(20);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 29_000);
      const early = await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': priming!.id! }));
      expect(early.status).toBe(200);
      await early.body!.cancel();
      vi.setSystemTime(Date.now() + 2_000);
      const late = await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': priming!.id! }));
      expect(late.status).toBe(404);
    } finally {
      vi.useRealTimers();
    }
  });

  it('204 when a finished stream has nothing after the given id (so SDK v1 stops reconnecting after an error reply)', async () => {
    const { handle } = setup();
    const session = await initialize(handle);
    const text = await (await handle(post({ jsonrpc: '2.0', id: 4, method: 'prompts/get', params: { name: 'failing' } }, session))).text();
    expect(messages(text).at(-1)).toMatchObject({ id: 4, error: { message: 'this prompt always fails' } });
    const response = await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': parse(text).at(-1)!.id! }));
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it('GET with neither Last-Event-ID nor a session, a 2026 GET and DELETE stay 405; GET that refuses SSE is 406', async () => {
    const { handle } = setup();
    const session = await initialize(handle);
    const [priming] = parse(await (await handle(post(callTool('progress'), session))).text());
    const plain = await handle(get({}));
    const modern = await handle(new Request(URL_, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28', 'last-event-id': priming!.id! } }));
    const del = await handle(new Request(URL_, { method: 'DELETE', headers: { ...session, 'last-event-id': priming!.id! } }));
    for (const response of [plain, modern, del]) {
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
    const json = await handle(get({ accept: 'application/json', 'mcp-session-id': session['mcp-session-id'], 'last-event-id': priming!.id! }));
    expect(json.status).toBe(406);
  });

  it("mode 'json' keeps GET at 405 and never primes", async () => {
    const { handle } = setup({ mode: 'json' });
    const session = await initialize(handle);
    const response = await handle(post(callTool('close-first'), session));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect((await handle(get({ ...session, 'last-event-id': 'x-0' }))).status).toBe(405);
  });

  it('the resuming GET passes the scope factory (auth) like a POST', async () => {
    const { mcp, state } = server();
    const handle = createFetchHandler(mcp, {
      scope: (request) => {
        if (request.headers.get('authorization') !== 'Bearer ok') throw new McpError(ErrorCode.InvalidRequest, 'Unauthorized', undefined, 401);
        return {};
      },
    });
    const auth = { authorization: 'Bearer ok' };
    const session = { ...(await initialize(handle, auth)), ...auth };
    const [priming] = parse(await (await handle(post(callTool('poll'), session))).text());
    const refused = await handle(get({ 'mcp-session-id': session['mcp-session-id'], 'last-event-id': priming!.id! }));
    expect(refused.status).toBe(401);
    state.release.open();
    const allowed = await handle(get({ ...session, 'last-event-id': priming!.id! }));
    expect(allowed.status).toBe(200);
    expect(messages(await allowed.text()).at(-1).result.content[0].text).toBe('polled result');
  });
});

describe('EventStore bounds', () => {
  const reader = () => {
    const got: string[] = [];
    let ended = false;
    const r: StreamReader = { write: (t) => void got.push(t), end: () => void (ended = true) };
    return { r, got, ended: () => ended };
  };

  it('keeps at most maxEvents per stream, dropping the oldest', () => {
    const store = new EventStore({ maxEvents: 3 });
    const stream = store.open('s', 'sess', 1);
    for (let n = 1; n <= 5; n++) stream.push(`e${n}`);
    expect(stream.after(0)).toEqual(['e3', 'e4', 'e5']);
    expect(stream.after(3)).toEqual(['e4', 'e5']);
    expect(stream.after(5)).toEqual([]);
  });

  it('keeps at most maxChars per stream; an event larger than that is never kept (issue 24, finding 4)', () => {
    const store = new EventStore({ maxChars: 10 });
    const stream = store.open('s', 'owner', 1);
    stream.push('aaaa');
    stream.push('bbbb');
    stream.push('cccc'); // 12 chars: 'aaaa' goes
    expect(stream.after(0)).toEqual(['bbbb', 'cccc']);
    stream.push('x'.repeat(50)); // an empty frame holds its number
    expect(stream.after(0)).toEqual(['bbbb', 'cccc', '']);
    expect(stream.chars).toBe(8);
  });

  it('keeps at most maxStreams, dropping the oldest and ending its reader', () => {
    const store = new EventStore({ maxStreams: 2 });
    const a = store.open('a', 'owner', 1);
    const live = reader();
    a.attach(live.r);
    store.open('b', 'owner', 1);
    store.open('c', 'owner', 1);
    expect(store.size).toBe(2);
    expect(store.find('a-0', 'owner')).toBeUndefined();
    expect(store.find('b-0', 'owner')).toBeDefined();
    expect(live.ended()).toBe(true);
    a.push('late');
    expect(live.got).toEqual([]); // a dropped stream discards what comes
  });

  it('forgets finished streams after ttlMs, never unfinished ones', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const store = new EventStore({ ttlMs: 1000 });
      store.open('done', 'owner', 1).end();
      store.open('running', 'owner', 1);
      vi.setSystemTime(Date.now() + 999);
      expect(store.find('done-0', 'owner')).toBeDefined();
      vi.setSystemTime(Date.now() + 1);
      expect(store.find('done-0', 'owner')).toBeUndefined();
      vi.setSystemTime(Date.now() + 3_600_000);
      expect(store.find('running-0', 'owner')).toBeDefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('hands events to one live reader at a time, and ends it with the stream', () => {
    const stream = new EventStore().open('s', 'owner', 1);
    const first = reader();
    const second = reader();
    stream.attach(first.r);
    stream.push('one');
    stream.attach(second.r); // the client reconnected: the old reader is ended
    expect(first.ended()).toBe(true);
    stream.push('two');
    stream.detach(first.r); // a stale detach does not unhook the new reader
    stream.push('three');
    stream.end();
    expect([first.got, second.got, second.ended()]).toEqual([['one'], ['two', 'three'], true]);
  });

  it('parses only well-formed event ids', () => {
    expect(parseEventId('abc-12')).toEqual({ streamId: 'abc', seq: 12 });
    expect(parseEventId('a-b-3')).toEqual({ streamId: 'a-b', seq: 3 });
    for (const bad of ['', '-1', 'abc', 'abc-', 'abc-x', 'abc-1.5', `${'a'.repeat(65)}-1`]) expect(parseEventId(bad)).toBeUndefined();
  });
});

describe('over real node:http on 127.0.0.1', () => {
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('priming, close, then a raw GET resume delivers the result', async () => {
    const { mcp, state } = server();
    running = await serve(mcp, { port: 0 });
    const url = running.url;
    const init = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify({
      jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }) });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const session = { ...LEGACY, 'mcp-session-id': sessionId };
    const postResponse = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...session }, body: JSON.stringify(callTool('poll', 11)) });
    expect(postResponse.headers.get('content-type')).toBe('text/event-stream');
    const postText = await postResponse.text(); // ends while the handler still waits
    expect(parse(postText)[0]).toMatchObject({ retry: 1000, data: '' });
    expect(state).toMatchObject({ aborted: false, finished: false });
    const resume = await fetch(url, { headers: { accept: 'text/event-stream', ...session, 'last-event-id': parse(postText).at(-1)!.id! } });
    expect(resume.status).toBe(200); // headers arrive before any event
    state.release.open();
    const text = await resume.text();
    expect(messages(text)).toMatchObject([{ method: 'notifications/progress', params: { progress: 2 } }, { id: 11, result: { content: [{ text: 'polled result' }] } }]);
    expect(state.aborted).toBe(false);
    const gone = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'someone-else', 'last-event-id': parse(postText)[0]!.id! } });
    expect(gone.status).toBe(404);
    await gone.text();

    const failed = await (await fetch(url, { method: 'POST', headers: { ...HEADERS, ...session }, body: JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'prompts/get', params: { name: 'failing' } }) })).text();
    const nothingMore = await fetch(url, { headers: { accept: 'text/event-stream', ...session, 'last-event-id': parse(failed).at(-1)!.id! } });
    expect([nothingMore.status, nothingMore.headers.get('content-length'), await nothingMore.text()]).toEqual([204, null, '']);
  });

  it('SDK v1 client: resumes a closed stream by itself and gets the result and the later progress', async () => {
    const { mcp, state } = server();
    running = await serve(mcp, { port: 0, sseRetryMs: 20 });
    const gets: (string | null)[] = [];
    const fetchImpl = async (input: string | URL | Request, init?: RequestInit) => {
      if (init?.method === 'GET') gets.push(new Headers(init.headers).get('last-event-id'));
      return fetch(input, init);
    };
    const client = new ClientV1({ name: 'v1', version: '1' });
    const errors: unknown[] = [];
    client.onerror = (e) => void errors.push(e);
    await client.connect(new TransportV1(new URL(running.url), { fetch: fetchImpl }));
    const progress: number[] = [];
    setTimeout(() => state.release.open(), 50);
    const result = await client.callTool({ name: 'poll', arguments: {} }, undefined, { onprogress: (p) => void progress.push(p.progress) });
    expect(result.content).toEqual([{ type: 'text', text: 'polled result' }]);
    expect(progress).toEqual([1, 2]); // one on the POST, one on the resumed GET
    expect(gets.filter((id) => id !== null)).toHaveLength(1);
    expect(gets.at(-1)).toMatch(/^[0-9a-f]{32}-1$/);

    // An error reply on a primed stream: the client tries to resume, gets 204, and stops without errors.
    await expect(client.getPrompt({ name: 'failing' })).rejects.toThrow(/always fails/);
    await sleep(100);
    expect(gets.filter((id) => id !== null)).toHaveLength(2);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('client v2 on the 2025 wire: resumes a closed stream by itself', async () => {
    const { mcp, state } = server();
    running = await serve(mcp, { port: 0, sseRetryMs: 20 });
    const client = new ClientV2({ name: 'v2', version: '2' }, { capabilities: {} });
    await client.connect(new TransportV2(new URL(running.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    setTimeout(() => state.release.open(), 50);
    const result = await client.callTool({ name: 'close-first', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'late result' }]);
    await client.close();
  });
});
