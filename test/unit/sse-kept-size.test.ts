/**
 * What the replay store keeps per finished 2025 stream. At the store's bound (1,000 streams) every
 * SSE answer is kept until 1,000 later ones pushed it out, so each survives garbage collections: its
 * size is paid on every scavenge under load. Measured through the fetch handler, after full GCs.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { EventStore } from '../../src/state/replay.js';
import { createFetchHandler } from '../../src/transports/http/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const call = (id: number) =>
  new Request('http://127.0.0.1:3000/mcp', {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'step', arguments: {}, _meta: { progressToken: id } } }),
  });

describe('a finished SSE stream in the replay store', () => {
  it('keeps its two frames flat: under 1,000 bytes with its record (1,250 when each frame was a tree of its pieces)', async () => {
    const store = new EventStore({ maxStreams: 10_000 });
    const mcp = new MiniMCP({ name: 't', version: '1', state: { replay: store } });
    mcp.tool('step', {}, (_args, ctx) => {
      ctx.progress(1);
      return 'ok';
    });
    const handler = createFetchHandler(mcp);
    const answer = async (id: number) => (await handler(call(id))).text();
    const collect = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 10)); // finalizers of the Web streams run in between
      }
    };
    expect(await answer(1)).toContain('notifications/progress');
    for (let id = 2; id <= 200; id++) await answer(id); // warm: code, caches, the store's first growth
    const streams = 4_000;
    await collect();
    const before = process.memoryUsage().heapUsed;
    for (let id = 1_000; id < 1_000 + streams; id++) await answer(id);
    await collect();
    const perStream = (process.memoryUsage().heapUsed - before) / streams;
    expect(store.size).toBe(4_200);
    expect(perStream).toBeLessThan(1_000);
  });
});
