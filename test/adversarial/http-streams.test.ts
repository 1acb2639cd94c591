/**
 * Thousands of long-lived SSE streams against a server in its own process (so its RSS is its own):
 * 2,000 `subscriptions/listen` streams (no concurrency slot, no idle timeout) and 2,000 progress
 * streams (each holds a slot). Measured: streams held, server RSS per stream, a normal request's
 * latency while they are open, and how fast everything is released when the clients vanish.
 * STREAMS=<n> changes the count (default 1,000 to keep `npm test` short; the figures in
 * docs/reliability.md are from STREAMS=2000).
 */
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, MODERN_META, openStream, rssOf, send, sleep, startHttpChild, statsOf } from './support/http-tools.js';

const STREAMS = Number(process.env.STREAMS ?? 1_000); // docs/reliability.md reports STREAMS=2000
const MiB = 1024 * 1024;

let server: Awaited<ReturnType<typeof startHttpChild>>;
beforeAll(async () => {
  server = await startHttpChild();
});
afterAll(async () => {
  await server?.stop();
});

async function openMany<T>(count: number, open: (i: number) => Promise<T>, batch = 200): Promise<PromiseSettledResult<T>[]> {
  const out: PromiseSettledResult<T>[] = [];
  for (let i = 0; i < count; i += batch) {
    out.push(...(await Promise.allSettled(Array.from({ length: Math.min(batch, count - i) }, (_, j) => open(i + j)))));
  }
  return out;
}

async function waitUntil(predicate: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  while (!(await predicate())) {
    if (performance.now() - t0 > timeoutMs) return Number.NaN;
    await sleep(10);
  }
  return performance.now() - t0;
}

describe(`${STREAMS} concurrent SSE streams`, () => {
  it(`${STREAMS} subscriptions/listen streams are all held; memory per stream; released on disconnect`, async () => {
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const headers = { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' };
    await statsOf(server.statsUrl);
    const rssBefore = rssOf(server.pid);
    const t0 = performance.now();
    const results = await openMany(STREAMS, (i) =>
      openStream(server.url, headers, { jsonrpc: '2.0', id: `L${i}`, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: MODERN_META } },
        (t) => t.includes('acknowledged'), agent));
    const opened = performance.now() - t0;
    const streams = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof openStream>>>).value);
    const stats = await statsOf(server.statsUrl);
    const rssHeld = rssOf(server.pid);
    const q0 = performance.now();
    const probe = await send(server.url, { headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping_tool' } } });
    const probeMs = performance.now() - q0;

    const d0 = performance.now();
    for (const s of streams) s.req.destroy();
    const releasedMs = await waitUntil(async () => (await statsOf(server.statsUrl)).subscribers === 0, 10_000);
    await sleep(200);
    const rssAfter = rssOf(server.pid);
    agent.destroy();
    console.info(`[measure] ${streams.length}/${STREAMS} listen streams held (opened in ${opened.toFixed(0)} ms); server RSS ${(rssBefore / MiB).toFixed(1)} -> ` +
      `${(rssHeld / MiB).toFixed(1)} MiB (${((rssHeld - rssBefore) / streams.length / 1024).toFixed(1)} KiB per stream); a request meanwhile took ${probeMs.toFixed(1)} ms; ` +
      `all ${stats.subscribers} subscriptions released ${releasedMs.toFixed(0)} ms after the clients vanished (from ${(d0 - t0).toFixed(0)} ms); RSS after ${(rssAfter / MiB).toFixed(1)} MiB`);
    expect(streams).toHaveLength(STREAMS);
    expect(stats.subscribers).toBe(STREAMS);
    expect(probe.status).toBe(200);
    expect(releasedMs).toBeLessThan(5_000);
  });

  it(`${STREAMS} progress streams: maxConcurrency running, the queue waiting, the rest refused 503; all freed on disconnect`, async () => {
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const headers = { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' };
    const opened: Awaited<ReturnType<typeof openStream>>[] = [];
    const refusedLatency: number[] = [];
    const all = Array.from({ length: STREAMS }, (_, i) => {
      const started = performance.now();
      return openStream(server.url, headers, { jsonrpc: '2.0', id: `P${i}`, method: 'tools/call', params: { name: 'progress_forever', _meta: { progressToken: i } } },
        (t) => t.includes('notifications/progress') || t.includes('"error"'), agent)
        .then((s) => {
          if (s.res.statusCode === 503) refusedLatency.push(performance.now() - started);
          else opened.push(s);
          return s;
        })
        .catch((e: Error) => {
          // A 503 body ends the response before or with the condition: count it.
          if (/503/.test(e.message) || /overloaded/.test(e.message)) refusedLatency.push(performance.now() - started);
          return undefined;
        });
    });
    await waitUntil(async () => opened.length + refusedLatency.length >= STREAMS - 400, 20_000);
    const stats = await statsOf(server.statsUrl);
    const rssHeld = rssOf(server.pid);
    console.info(`[measure] ${STREAMS} slow progress streams: ${stats.running} handlers running (maxConcurrency 100), ${opened.length} streams open, ` +
      `${refusedLatency.length} refused 503 so far (p50 ${refusedLatency.sort((a, b) => a - b)[Math.floor(refusedLatency.length / 2)]?.toFixed(0)} ms); ` +
      `server RSS ${(rssHeld / MiB).toFixed(1)} MiB`);
    expect(stats.running).toBe(100);
    expect(refusedLatency.length).toBeGreaterThanOrEqual(STREAMS - 500);
    for (const s of opened) s.req.destroy();
    // The 400 queued requests are admitted as slots free up, then cancelled as their clients vanish too.
    const settled = await Promise.race([Promise.all(all), sleep(15_000).then(() => 'timeout')]);
    for (const s of opened) s.req.destroy();
    for (const s of (Array.isArray(settled) ? settled : []).filter(Boolean)) s!.req.destroy();
    const freedMs = await waitUntil(async () => (await statsOf(server.statsUrl)).running === 0, 15_000);
    agent.destroy();
    console.info(`[measure] progress streams: all handlers ended ${freedMs.toFixed(0)} ms after their clients vanished; aborted in total ${(await statsOf(server.statsUrl)).aborted}`);
    expect(freedMs).toBeLessThan(15_000);
  });
});
