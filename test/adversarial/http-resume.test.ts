/**
 * SSE resumption (2025, SEP-1699: `ctx.closeStream()` then GET + Last-Event-ID) under abuse: hostile
 * Last-Event-ID values, another session's stream, and the store's global bound (one client can evict
 * everybody's resumable streams).
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createFetchHandler } from '../../src/transports/http/index.js';

const URL_ = 'http://127.0.0.1:3000/mcp';
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function server() {
  const mcp = new MiniMCP({ name: 'resume', version: '1', onError: () => {} });
  mcp.tool('closer', {}, async (_a, ctx) => {
    ctx.progress(1);
    ctx.closeStream();
    await sleep(5);
    return 'finished after the stream closed';
  });
  return createFetchHandler(mcp, { onError: () => {} });
}

async function session(handler: ReturnType<typeof server>, name: string): Promise<string> {
  const r = await handler(new Request(URL_, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1' } } }),
  }));
  await r.text();
  return r.headers.get('mcp-session-id')!;
}

/** Calls `closer` and returns the last event id the closed POST stream carried. */
async function closedStream(handler: ReturnType<typeof server>, sessionId: string, id: number | string): Promise<string> {
  const r = await handler(new Request(URL_, {
    method: 'POST',
    headers: { ...POST_HEADERS, 'mcp-session-id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'closer', arguments: {}, _meta: { progressToken: 't' } } }),
  }));
  const text = await r.text();
  const ids = [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]!);
  expect(ids.length).toBeGreaterThan(0);
  return ids[ids.length - 1]!;
}

const resume = (handler: ReturnType<typeof server>, lastEventId: string, sessionId?: string) =>
  handler(new Request(URL_, {
    method: 'GET',
    headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', 'last-event-id': lastEventId, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
  }));

describe('GET + Last-Event-ID', () => {
  it('the honest client gets the reply it missed', async () => {
    const handler = server();
    const s = await session(handler, 'a');
    const last = await closedStream(handler, s, 1);
    await sleep(20);
    const r = await resume(handler, last, s);
    expect(r.status).toBe(200);
    expect(await r.text()).toContain('finished after the stream closed');
  });

  it('hostile Last-Event-ID values are refused with a JSON-RPC error, quickly', async () => {
    const handler = server();
    const s = await session(handler, 'a');
    const values = ['-', 'x', '-1', 'a-1', `${'A'.repeat(8_000)}-1`, '00000000000000000000000000000000-0', '../../etc-1', '%00-1',
      'a-99999999999999999999', `${'f'.repeat(32)}-${'9'.repeat(15)}`, ' \t ', '__proto__-0', 'constructor-1'];
    for (const value of values) {
      for (const sessionId of [s, undefined]) {
        const t0 = performance.now();
        const r = await resume(handler, value, sessionId);
        expect(performance.now() - t0).toBeLessThan(200);
        expect([404, 405, 406]).toContain(r.status);
        expect(JSON.parse(await r.text())).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      }
    }
  });

  it("another session (or none) cannot read a session's stream", async () => {
    const handler = server();
    const alice = await session(handler, 'alice');
    const mallory = await session(handler, 'mallory');
    const last = await closedStream(handler, alice, 1);
    await sleep(20);
    expect((await resume(handler, last, mallory)).status).toBe(404);
    expect((await resume(handler, last)).status).toBe(404);
    expect((await resume(handler, last, alice)).status).toBe(200);
  });

  it('one client opening 1,000 closed streams evicts every other client\'s resumable stream (measured; no per-session quota)', async () => {
    const handler = server();
    const victim = await session(handler, 'victim');
    const attacker = await session(handler, 'attacker');
    const last = await closedStream(handler, victim, 'v');
    for (let i = 0; i < 1_000; i += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => closedStream(handler, attacker, i + j)));
    await sleep(20);
    const r = await resume(handler, last, victim);
    console.info(`[measure] SEP-1699 store: after another session opened 1,000 closed streams, the victim's resume got ${r.status} ` +
      '(maxStreams 1,000 is global, oldest evicted first)');
    expect([200, 204, 404]).toContain(r.status);
  });
});
