#!/usr/bin/env node --expose-gc
/**
 * `node --expose-gc bench/webhooks.mjs [--latency=1000 --burst=5000 --fanout=10000 --no-redis]`: the
 * webhook engine on the built package (dist/; run `npm run build` first), against a receiver on
 * 127.0.0.1 that verifies every delivery with the `standardwebhooks` package before answering 204.
 *
 * Printed:
 * - emit → verified delivery: one delivery at a time, from `enqueue` to the receiver's successful
 *   verification (p50, p99, max);
 * - deliveries per second: a burst enqueued at once, until the last is verified (engine concurrency 64);
 * - fan-out: one occurrence enqueued to 10,000 subscriptions of one event type (1,000 principals ×
 *   10): the enqueue cost per subscription, then deliveries per second for all of them;
 * - memory: heap per pending delivery (an occurrence of ~300 bytes, nothing sent), and heap kept per
 *   delivered (subscription, occurrence) (the dedup key and the subscription's health);
 * - the same burst on Redis with three engines sharing one redis-server (when it is installed).
 * Every connection is new (the engine pins each attempt to the address it checked), so the numbers
 * include a TCP handshake per delivery; plain http on loopback (allowLoopback), no TLS.
 */
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const root = fileURLToPath(new URL('..', import.meta.url));
const { createWebhookEngine, redisDeliveryStore } = await import(`${root}dist/events/webhooks/index.js`);
const { values: opt } = parseArgs({
  options: { latency: { type: 'string', default: '1000' }, burst: { type: 'string', default: '5000' }, fanout: { type: 'string', default: '10000' }, 'no-redis': { type: 'boolean', default: false } },
});
const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const verifier = new Webhook(SECRET);

/** The receiver: verifies each delivery (challenge echoed), then calls `onDelivery(webhookId)`. */
async function receiver(onDelivery) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = verifier.verify(body, req.headers); // throws on a bad signature: the bench fails loudly
      if (parsed.type === 'verification') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: parsed.challenge }));
      res.writeHead(204).end();
      onDelivery(req.headers['webhook-id']);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/hooks?k=1`, close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))) };
}

const occurrence = (i) => ({ eventId: `evt_${i}`, name: 'incident.created', timestamp: new Date().toISOString(), data: { id: `inc_${i}`, service: 'payments-api', severity: 'high', summary: 'x'.repeat(150) }, cursor: `c_${i}` });
const target = (url, i = 0, principal = 'p0') => ({ subscriptionId: `sub_${i}`, principal, url, secrets: [SECRET] });
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const quiet = { log: () => {}, limits: { perPrincipal: 100_000, total: 1_000_000, bytesPerPrincipal: 1e9, bytesTotal: 4e9 } };

async function latency(n) {
  let waiting;
  const rx = await receiver(() => waiting?.());
  const engine = createWebhookEngine({ egress: { allowLoopback: true }, ...quiet });
  await engine.verify(target(rx.url));
  const times = [];
  for (let i = 0; i < n; i++) {
    const done = new Promise((resolve) => (waiting = resolve));
    const start = performance.now();
    await engine.enqueue(target(rx.url), { webhookId: `evt_${i}`, body: occurrence(i) });
    await done;
    times.push(performance.now() - start);
  }
  await engine.close();
  await rx.close();
  times.sort((a, b) => a - b);
  console.log(`emit → verified delivery (${n} one at a time): p50 ${pct(times, 50).toFixed(2)} ms, p99 ${pct(times, 99).toFixed(2)} ms, max ${times.at(-1).toFixed(2)} ms`);
}

/** Enqueues `n` deliveries (to `subs` subscriptions) on `engines` and waits until all are verified. */
async function burst(label, n, subs, makeEngines) {
  let left = n;
  let finished;
  const all = new Promise((resolve) => (finished = resolve));
  const rx = await receiver(() => --left === 0 && finished());
  const { engines, close } = await makeEngines();
  const start = performance.now();
  // As a fan-out would: enqueues in flight together (on Redis, node-redis pipelines them), 500 at a time.
  for (let from = 0; from < n; from += 500) {
    const batch = [];
    for (let i = from; i < Math.min(n, from + 500); i++) {
      const sub = i % subs;
      const delivery = { webhookId: subs > 1 ? 'evt_fanout' : `evt_${i}`, body: occurrence(subs > 1 ? 0 : i) };
      batch.push(engines[i % engines.length].enqueue(target(rx.url, sub, `p${sub % 1000}`), delivery));
    }
    const outcomes = await Promise.all(batch);
    if (outcomes.some((o) => o !== 'queued')) throw new Error(`not queued: ${outcomes.find((o) => o !== 'queued')}`);
  }
  const enqueued = performance.now() - start;
  await all;
  const total = performance.now() - start;
  console.log(`${label}: enqueue ${((enqueued * 1000) / n).toFixed(1)} µs each (${enqueued.toFixed(0)} ms for ${n}); all ${n} verified in ${total.toFixed(0)} ms = ${Math.round((n / total) * 1000)} deliveries/s`);
  await close();
  await rx.close();
}

/** The receivers of this run count as verified by the operator (1,000 principals would otherwise mean 1,000 challenges). */
const LOCAL = ['http://127.0.0.1:'];
const memoryEngines = async () => {
  const engine = createWebhookEngine({ egress: { allowLoopback: true }, preverifiedUrls: LOCAL, ...quiet });
  return { engines: [engine], close: () => engine.close() };
};

async function memory() {
  const heap = () => (globalThis.gc?.(), globalThis.gc?.(), process.memoryUsage().heapUsed);
  const url = 'http://127.0.0.1:9/never';
  const idle = createWebhookEngine({ egress: { allowLoopback: true }, preverifiedUrls: [url], concurrency: 0, ...quiet });
  const n = 20_000;
  const targets = Array.from({ length: 10_000 }, (_, i) => target(url, i, `p${i % 1000}`));
  const bodies = Array.from({ length: n }, (_, i) => JSON.stringify(occurrence(i)));
  const before = heap();
  for (let i = 0; i < n; i++) await idle.enqueue(targets[i % 10_000], { webhookId: `evt_${i}`, body: bodies[i] });
  const pending = (heap() - before) / n;
  await idle.close();
  console.log(`memory: ${Math.round(pending)} bytes of heap per pending delivery (job record and queue slots; the ${bodies[1].length}-byte body string and the subscription's target are the caller's)`);
  let left = 0;
  let finished;
  const rx = await receiver(() => --left === 0 && finished());
  const engine = createWebhookEngine({ egress: { allowLoopback: true }, preverifiedUrls: [rx.url], ...quiet });
  const subscribers = Array.from({ length: 20_000 }, (_, i) => target(rx.url, i, `p${i % 1000}`));
  const body = JSON.stringify(occurrence(0));
  const deliverTo = async (from, to) => {
    left = to - from;
    const all = new Promise((resolve) => (finished = resolve));
    for (let i = from; i < to; i++) await engine.enqueue(subscribers[i], { webhookId: 'evt_m', body });
    await all;
    await new Promise((resolve) => setTimeout(resolve, 200)); // sockets closed
  };
  await deliverTo(0, 10_000); // warm-up: code, pools, maps grown once
  const base = heap();
  await deliverTo(10_000, 20_000);
  console.log(`memory: ${Math.round((heap() - base) / 10_000)} bytes of heap kept per delivered (subscription, occurrence): its dedup key (kept dedupMs) and the subscription's health`);
  await engine.close();
  await rx.close();
}

async function redisBurst(n) {
  const { startRedis, missingClusterBinaries } = await import(`${root}scripts/cluster-kit.mjs`);
  if (!process.env.REDIS_URL && missingClusterBinaries().includes('redis-server')) return console.log('redis: skipped (no redis-server)');
  const redis = await startRedis();
  const prefix = `bench${process.pid}:`;
  const make = async () => {
    const parts = await Promise.all(
      [1, 2, 3].map(async () => {
        const store = await redisDeliveryStore({ url: redis.url, prefix });
        return { store, engine: createWebhookEngine({ store, egress: { allowLoopback: true }, preverifiedUrls: LOCAL, pollMs: 20, ...quiet }) };
      }),
    );
    const close = async () => {
      for (const part of parts) await part.engine.close().then(() => part.store.close());
    };
    return { engines: parts.map((part) => part.engine), close };
  };
  try {
    await burst(`redis, 3 engines on one redis-server: burst of ${n}`, n, 1, make);
  } finally {
    await redis.stop();
  }
}

console.log(`node ${process.version}; load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await latency(Number(opt.latency));
await burst(`burst of ${opt.burst} to one subscription`, Number(opt.burst), 1, memoryEngines);
await burst(`fan-out: one occurrence to ${opt.fanout} subscriptions (1,000 principals)`, Number(opt.fanout), Number(opt.fanout), memoryEngines);
await memory();
if (!opt['no-redis']) await redisBurst(Number(opt.burst));
