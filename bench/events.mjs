#!/usr/bin/env node
/**
 * `node bench/events.mjs [--events=20000] [--redis=redis://127.0.0.1:6379]`: what the Events extension
 * costs, on the built package (dist/, `npm run build` first), in process (the transport's cost is the
 * same per request for every method, so it is left out):
 * - a `tools/call` (2026) as the unit;
 * - `events/poll` per event (pages of 100) and per request (one event each);
 * - `events/stream` per event (emit to the notification handed to the transport);
 * - `emit()` itself;
 * - bytes kept per logged event (heap, memory log) and, with --redis, per event in a Redis stream.
 */
import { parseArgs } from 'node:util';
import { MiniMCP } from '../dist/index.js';

const { values: opt } = parseArgs({ options: { events: { type: 'string', default: '20000' }, redis: { type: 'string' } } });
const N = Number(opt.events);
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const payload = { type: 'object', properties: { id: { type: 'string' }, service: { type: 'string' }, severity: { enum: ['low', 'high'] } }, required: ['id', 'service', 'severity'] };

function server(options = {}) {
  const mcp = new MiniMCP({ name: 'bench', version: '1', onError: () => {}, maxStreams: 10_000, ...options });
  mcp.configureEvents({ heartbeatMs: 30_000, maxPollEvents: 100 });
  const incident = mcp.event('incident.created', { description: 'bench', payload, replay: { maxEvents: Math.max(N, 1000), maxAgeMs: 3_600_000 } });
  mcp.tool('noop', { description: 'nothing' }, () => 'ok');
  return { mcp, incident };
}

let id = 0;
const call = (mcp, method, params) => mcp.dispatch({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta } });
const usPer = (start, count) => (Number(process.hrtime.bigint() - start) / 1000 / count).toFixed(2);

async function toolCalls() {
  const { mcp } = server();
  for (let i = 0; i < 2000; i++) await call(mcp, 'tools/call', { name: 'noop', arguments: {} });
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await call(mcp, 'tools/call', { name: 'noop', arguments: {} });
  return usPer(start, N);
}

async function emits(incident, count) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await incident.emit({ id: String(i), service: 's', severity: 'low' });
  return usPer(start, count);
}

async function polls() {
  const { mcp, incident } = server();
  const first = (await call(mcp, 'events/poll', { name: 'incident.created', cursor: null })).reply.result.cursor;
  const emit = await emits(incident, N);
  let cursor = first;
  let start = process.hrtime.bigint();
  for (let read = 0; read < N; ) {
    const r = (await call(mcp, 'events/poll', { name: 'incident.created', cursor, maxEvents: 100 })).reply.result;
    read += r.events.length;
    cursor = r.cursor;
  }
  const paged = usPer(start, N);
  cursor = first;
  const requests = Math.min(N, 5000);
  start = process.hrtime.bigint();
  for (let i = 0; i < requests; i++) cursor = (await call(mcp, 'events/poll', { name: 'incident.created', cursor, maxEvents: 1 })).reply.result.cursor;
  return { emit, paged, single: usPer(start, requests) };
}

async function streams() {
  const { mcp, incident } = server();
  let received = 0;
  let done;
  const all = new Promise((resolve) => (done = resolve));
  const abort = new AbortController();
  const send = (m) => {
    if (m.method === 'notifications/events/event' && ++received === N) done();
  };
  void mcp.dispatch({ jsonrpc: '2.0', id: 's1', method: 'events/stream', params: { name: 'incident.created', _meta: meta } }, { send, signal: abort.signal });
  await new Promise((r) => setTimeout(r, 20));
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) void incident.emit({ id: String(i), service: 's', severity: 'low' });
  await all;
  const perEvent = usPer(start, N);
  abort.abort();
  return perEvent;
}

async function heapPerEvent() {
  const { incident } = server();
  await incident.emit({ id: 'warm', service: 's', severity: 'low' });
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < N; i++) await incident.emit({ id: `inc_${i}`, service: 'checkout', severity: 'high' }, { eventId: `evt_${i.toString().padStart(8, '0')}` });
  globalThis.gc?.();
  const bytes = Math.round((process.memoryUsage().heapUsed - before) / N);
  await incident.emit({ id: 'kept', service: 's', severity: 'low' }); // the log stays reachable through the measurement
  return bytes;
}

async function redisPerEvent(url) {
  const { redisState } = await import('../dist/redis/index.js');
  const prefix = `bench${Date.now()}:`;
  const state = await redisState({ url, prefix });
  const { incident } = server({ state, requestState: { secret: 'x'.repeat(32) } });
  const count = Math.min(N, 10_000);
  const emit = await emits(incident, count);
  const { createClient } = await import('redis');
  const client = await createClient({ url }).connect();
  const bytes = await client.memoryUsage(`${prefix}ev:incident.created`, { SAMPLES: 0 });
  await client.del([`${prefix}ev:incident.created`, `${prefix}ev:incident.created:cut`]);
  await client.quit();
  await state.close();
  return { emit, bytes: Math.round(bytes / count) };
}

/** 10,000 webhook subscriptions of one type (100 principals × 100 callbacks), with an engine that only counts. */
async function subscriptions(count = 10_000) {
  let enqueued = 0;
  let all;
  const done = new Promise((resolve) => (all = resolve));
  const engine = {
    verify: async () => {}, status: async () => undefined, reactivate: async () => {}, forget: async () => {}, close: async () => {},
    enqueue: async () => {
      if (++enqueued === count) all();
      return 'queued';
    },
  };
  const mcp = new MiniMCP({ name: 'bench', version: '1', onError: () => {} });
  mcp.configureEvents({ webhooks: { engine, validateUrl: () => {}, validateSecret: () => {}, maxSubscriptionsPerPrincipal: 1_000, maxSubscriptions: count } });
  const incident = mcp.event('incident.created', { description: 'bench', input: { type: 'object', properties: { service: { type: 'string' } } }, payload });
  const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const params = { name: 'incident.created', arguments: { service: 'checkout' }, delivery: { mode: 'webhook', url: `https://hooks.example.com/p${i % 100}/cb${i}?key=${i}`, secret }, _meta: meta };
    const { reply } = await mcp.dispatch({ jsonrpc: '2.0', id: ++id, method: 'events/subscribe', params }, { scope: { principal: `p${i % 100}` } });
    if (reply.error) throw new Error(reply.error.message);
  }
  const subscribe = usPer(start, count);
  globalThis.gc?.();
  const bytes = Math.round((process.memoryUsage().heapUsed - before) / count); // the server stays reachable: it emits below
  const fan = process.hrtime.bigint();
  await incident.emit({ id: 'x', service: 'checkout', severity: 'high' });
  await done;
  const fanOutMs = (Number(process.hrtime.bigint() - fan) / 1e6).toFixed(1);
  return { subscribe, bytes, fanOutMs };
}

/**
 * emit() to a delivery verified by a receiver (standardwebhooks) on 127.0.0.1, through the whole path:
 * the events layer's fan-out, the engine (minimcp/events), a new connection per delivery, plain http
 * on loopback (allowLoopback). One at a time for latency, then a burst for deliveries per second.
 */
async function webhookPath(sequential = 300, burst = 800) {
  const http = await import('node:http');
  const { Webhook } = await import('standardwebhooks');
  const { eventWebhooks } = await import('../dist/events/index.js');
  const secret = `whsec_${Buffer.alloc(32, 6).toString('base64')}`;
  const verifier = new Webhook(secret);
  const waiting = new Map();
  let verified = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c)).on('end', () => {
      const payload = verifier.verify(body, req.headers);
      if (payload.type === 'verification') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: payload.challenge }));
      verified++;
      waiting.get(payload.eventId)?.();
      res.writeHead(204).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const webhooks = eventWebhooks({ egress: { allowLoopback: true }, log: () => {} });
  const mcp = new MiniMCP({ name: 'bench', version: '1', onError: () => {} });
  mcp.configureEvents({ webhooks });
  const incident = mcp.event('incident.created', { description: 'bench', payload });
  const url = `http://127.0.0.1:${server.address().port}/hooks?k=1`;
  const { reply } = await mcp.dispatch({ jsonrpc: '2.0', id: ++id, method: 'events/subscribe', params: { name: 'incident.created', delivery: { mode: 'webhook', url, secret }, _meta: meta } }, { scope: { principal: 'bench' } });
  if (reply.error) throw new Error(reply.error.message);
  const times = [];
  for (let i = 0; i < sequential; i++) {
    const eventId = `evt_seq_${i}`;
    const arrived = new Promise((r) => waiting.set(eventId, r));
    const start = process.hrtime.bigint();
    await incident.emit({ id: String(i), service: 's', severity: 'low' }, { eventId });
    await Promise.race([arrived, new Promise((_, reject) => setTimeout(() => reject(new Error(`${eventId} not delivered in 10 s`)), 10_000).unref())]);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const before = verified;
  const start = process.hrtime.bigint();
  for (let i = 0; i < burst; i++) void incident.emit({ id: String(i), service: 's', severity: 'low' }, { eventId: `evt_burst_${i}` });
  // At most 1,000 deliveries pending per principal (the engine's default): the burst stays under it.
  for (const deadline = Date.now() + 60_000; verified - before < burst && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
  const delivered = verified - before;
  const perSecond = `${Math.round(delivered / (Number(process.hrtime.bigint() - start) / 1e9))} (${delivered} of ${burst} verified${delivered < burst ? ' within 60 s' : ''})`;
  await webhooks.engine.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
  return { p50: at(0.5), p99: at(0.99), max: times.at(-1).toFixed(2), perSecond };
}

// Memory first, while nothing else was allocated: a server of an earlier step freed during a
// measurement would hide what this one keeps.
const heap = await heapPerEvent();
const subs = await subscriptions();
const tool = await toolCalls();
const poll = await polls();
const stream = await streams();
console.log(`events bench, ${N} events, in process (µs per operation):`);
console.log(`  tools/call (2026, a no-op tool)        ${tool}`);
console.log(`  emit() (memory log, payload checked)   ${poll.emit}`);
console.log(`  events/poll, per event (pages of 100)  ${poll.paged}`);
console.log(`  events/poll, one event per request    ${poll.single}`);
console.log(`  events/stream, per event delivered     ${stream}`);
console.log(`  heap per logged event (memory log)     ${heap} bytes${globalThis.gc ? '' : ' (run with --expose-gc for a cleaner number)'}`);
console.log(`  events/subscribe (10,000 on one type)  ${subs.subscribe} each; ${subs.bytes} bytes kept per subscription`);
console.log(`  one emit fanned out to 10,000          ${subs.fanOutMs} ms to the last enqueue (an engine that only counts)`);
const hook = await webhookPath();
console.log(`  emit → verified webhook delivery        p50 ${hook.p50} ms, p99 ${hook.p99} ms, max ${hook.max} ms (300, one at a time)`);
console.log(`  webhook deliveries per second          ${hook.perSecond} (a burst of 800 emits, one subscription)`);
if (opt.redis) {
  const redis = await redisPerEvent(opt.redis);
  console.log(`  emit() (Redis Streams)                 ${redis.emit}`);
  console.log(`  Redis bytes per logged event          ${redis.bytes}`);
}
process.exit(0);
