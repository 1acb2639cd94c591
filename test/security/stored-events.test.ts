/**
 * The soak's `replay` attack: a client opens 2025 resumable streams and drops them at once, and its
 * handlers go on writing large progress events that only wait in the replay store. Past the
 * principal's `storedEventCharsPerSecond` budget such notifications are dropped before they are
 * serialized; the reply is always kept, so a resume still gets the answer; a live stream is untouched.
 */
import { describe, expect, it, vi } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import * as jsonrpc from '../../src/protocol/jsonrpc.js';
import { createFetchHandler } from '../../src/transports/http/index.js';

const URL_ = 'http://127.0.0.1:3000/mcp';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const post = (body: object, headers: Record<string, string> = {}) => new Request(URL_, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
const data = (text: string) => text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));

function setup(closes: boolean) {
  const mcp = new MiniMCP<{ principal: string }>({ name: 'stored', version: '1', onError: () => {} });
  mcp.tool('chatty', {}, async (_args, ctx) => {
    if (closes) ctx.closeStream(); // the response ends: what follows only waits in the store
    for (let i = 1; i <= 10; i++) ctx.progress(i, 10, 'x'.repeat(3000));
    await sleep(1);
    return 'done';
  });
  const handle = createFetchHandler(mcp, { storedEventCharsPerSecond: 1000, scope: () => ({ principal: 'bob' }) });
  return handle;
}

async function session(handle: (r: Request) => Promise<Response>) {
  const init = await handle(post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }));
  return { 'mcp-session-id': init.headers.get('mcp-session-id')! };
}

const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: { progressToken: 'p' } } };

describe('events for a stream whose response ended', () => {
  it('are kept up to the principal budget (a burst of 8,000 characters here), the rest dropped unserialized; the reply always', async () => {
    const handle = setup(true);
    const headers = await session(handle);
    const serialize = vi.spyOn(jsonrpc, 'serializeMessage');
    const priming = (await (await handle(post(call, headers))).text()).split('\n')[0]!.slice(4);
    await sleep(20);
    const progressSerialized = serialize.mock.calls.filter(([m]) => (m as { method?: string }).method === 'notifications/progress').length;
    serialize.mockRestore();
    const resumed = data(await (await handle(new Request(URL_, { method: 'GET', headers: { ...HEADERS, ...headers, accept: 'text/event-stream', 'last-event-id': priming } }))).text());
    const progress = resumed.filter((m) => m.method === 'notifications/progress');
    // 3,000 characters and more each: two fit in the burst, the third goes into debt, the rest are dropped.
    expect(progress.map((m) => m.params.progress)).toEqual([1, 2, 3]);
    expect(progressSerialized).toBe(3);
    expect(resumed.at(-1)).toMatchObject({ id: 1, result: { content: [{ text: 'done' }] } });
  });

  it('a stream its client still reads gets every event', async () => {
    const handle = setup(false);
    const headers = await session(handle);
    const events = data(await (await handle(post(call, headers))).text());
    expect(events.filter((m) => m.method === 'notifications/progress')).toHaveLength(10);
  });
});
