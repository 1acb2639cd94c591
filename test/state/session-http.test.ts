/**
 * 2025 per-session features on one instance over real HTTP (issue 15, item 4): the GET notification
 * stream (one per session, 409 for a second) with list_changed and resources/updated fan-out,
 * logging/setLevel kept across POSTs, and a resumable SSE response that survives its client's
 * disconnect (resumed with Last-Event-ID), while plain JSON and 2026 keep close-as-cancel.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { createStateServer } from './support/server.js';
import { events, get, initialize, messages, post, request, resultOf, sleep, sseReader } from './support/http.js';

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start() {
  const made = createStateServer();
  running = await serve(made.mcp, { port: 0, host: '127.0.0.1', keepAliveMs: 60_000 });
  return { ...made, url: running.url };
}

describe('2025 GET stream', () => {
  it('one per session: a second GET is 409, and after the first closes a new one is served', async () => {
    const { url } = await start();
    const session = await initialize(url);
    const first = new AbortController();
    const stream = await get(url, session, first.signal);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const second = await get(url, session);
    expect(second.status).toBe(409);
    expect((await second.json()).error.code).toBe(-32600);
    first.abort();
    await sleep(50);
    const third = await get(url, session);
    expect(third.status).toBe(200);
    await third.body!.cancel();
    const other = await get(url, await initialize(url)); // another session has its own
    expect(other.status).toBe(200);
    await other.body!.cancel();
  });

  it('an unknown session is 404; a 2026 GET stays 405', async () => {
    const { url } = await start();
    expect((await get(url, { 'mcp-session-id': 'made.up.id' })).status).toBe(404);
    expect((await get(url, { 'mcp-protocol-version': '2026-07-28' })).status).toBe(405);
    expect((await get(url, { 'mcp-protocol-version': '2026-07-28', 'last-event-id': 'a-1' })).status).toBe(405);
  });

  it('carries list_changed and the updates of subscribed resources only, once each, in order', async () => {
    const { url } = await start();
    const session = await initialize(url);
    const stream = sseReader(await get(url, session));
    await resultOf(await post(url, request('resources/subscribe', { uri: 'mem://a' }), session));
    await resultOf(await post(url, request('tools/call', { name: 'touch', arguments: { uris: ['mem://b', 'mem://a', 'mem://b', 'mem://a'] } }), session));
    await resultOf(await post(url, request('tools/call', { name: 'add-tool', arguments: { name: 'late' } }), session));
    await resultOf(await post(url, request('resources/unsubscribe', { uri: 'mem://a' }), session));
    await resultOf(await post(url, request('tools/call', { name: 'touch', arguments: { uris: ['mem://a'] } }), session));
    await resultOf(await post(url, request('tools/call', { name: 'add-tool', arguments: { name: 'later' } }), session));
    const text = await stream.until((t) => (t.match(/list_changed/g) ?? []).length >= 2);
    await stream.cancel();
    expect(messages(text).map((m) => `${m.method} ${m.params?.uri ?? ''}`.trim())).toEqual([
      'notifications/resources/updated mem://a',
      'notifications/resources/updated mem://a',
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
    ]);
  });
});

describe('2025 logging/setLevel', () => {
  it('holds for the later requests of the session (and only that session)', async () => {
    const { url } = await start();
    const session = await initialize(url);
    const other = await initialize(url);
    const levels = async (headers: Record<string, string>) =>
      messages(await (await post(url, request('tools/call', { name: 'logs', arguments: {}, _meta: { progressToken: 1 } }), headers)).text())
        .filter((m) => m.method === 'notifications/message').map((m) => m.params.level);
    expect(await levels(session)).toEqual(['info', 'warning']);
    await resultOf(await post(url, request('logging/setLevel', { level: 'warning' }), session));
    expect(await levels(session)).toEqual(['warning']);
    expect(await levels(other)).toEqual(['info', 'warning']);
  });
});

describe('a 2025 resumable response whose client disconnects', () => {
  it('is not cancelled: Last-Event-ID resumes it with what was missed and the result', async () => {
    const { url } = await start();
    const session = await initialize(url);
    const client = new AbortController();
    const response = await post(url, request('tools/call', { name: 'steps', arguments: { pauseMs: 150 }, _meta: { progressToken: 't' } }, 'steps-1'), session, client.signal);
    const reader = sseReader(response);
    const seenText = await reader.until((t) => t.includes('"progress":1'));
    client.abort();
    const lastId = events(seenText).at(-1)?.id ?? events(seenText.replace(/data:\n/g, 'data: {}\n')).at(0)!.id!;
    await sleep(400); // the handler finishes meanwhile
    const resumed = await get(url, { ...session, 'last-event-id': lastId });
    expect(resumed.status).toBe(200);
    const rest = messages(await resumed.text());
    expect(rest.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'result']);
    expect(rest[0].params.progress).toBe(2);
    expect(rest[1]).toMatchObject({ id: 'steps-1', result: { content: [{ text: 'all steps done' }] } });
  });

  it('keeps what it wrote before it saw the client go: a client that read less resumes from what it read', async () => {
    const { url } = await start();
    const session = await initialize(url);
    const client = new AbortController();
    const response = await post(url, request('tools/call', { name: 'steps', arguments: { pauseMs: 150 }, _meta: { progressToken: 't' } }, 'steps-2'), session, client.signal);
    const seenText = await sseReader(response).until((t) => t.includes('"progress":2'));
    client.abort();
    // As if the client died after progress 1 (progress 2 was written but never read): it resumes from progress 1.
    const afterFirst = events(seenText.replace(/data:\n/g, 'data: {}\n')).find((e) => e.data.includes('"progress":1'))!.id!;
    await sleep(300); // the handler finishes meanwhile
    const rest = messages(await (await get(url, { ...session, 'last-event-id': afterFirst })).text());
    expect(rest.map((m) => m.params?.progress ?? 'result')).toEqual([2, 'result']);
  });

  it('plain JSON (no stream opened) and 2026 streams are still cancelled by the disconnect', async () => {
    const { url, seen } = await start();
    const session = await initialize(url);
    const json = new AbortController();
    void post(url, request('tools/call', { name: 'wait', arguments: { tag: 'json' } }), { ...session, accept: 'application/json' }, json.signal).catch(() => {});
    await sleep(100);
    json.abort();
    const modern = new AbortController();
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, progressToken: 'm' };
    const streamed = await post(url, request('tools/call', { name: 'wait', arguments: { tag: 'modern' }, _meta: meta }),
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'wait' }, modern.signal);
    await sseReader(streamed).until((t) => t.includes('progress'));
    modern.abort();
    const deadline = Date.now() + 3000;
    while (seen.cancelled.length < 2 && Date.now() < deadline) await sleep(20);
    expect(seen.cancelled.sort()).toEqual(['json', 'modern']);
  });
});
