/**
 * Fan-out load process: `node load/fanout.mjs '<json config>'`. Opens `streams` 2026
 * `subscriptions/listen` streams on raw sockets, spread round-robin over the members, each subscribed
 * to one resource; then, `rounds` times, asks one member (rotating) to raise `notifyResourceUpdated()`
 * (the `fanout_touch` tool) and records, per stream, the time from writing that request to the
 * arrival of `notifications/resources/updated`. Streams on another member than the one that raised
 * the change are "cross-instance". Prints one JSON line.
 * Config: { ports, streams, rounds, uri, roundTimeoutMs, headers (for the trigger) }.
 */
import { connect } from 'node:net';
import { quantile } from '../lib/stats.mjs';
import { Connection, postBytes } from './http-client.mjs';
import { callBody, checkHttpAnswer } from './validate.mjs';

const cfg = JSON.parse(process.argv[2]);
const host = '127.0.0.1';
const MARK = 'notifications/resources/updated';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

const listenBytes = (port, i) =>
  postBytes(host, port, '/mcp', { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'subscriptions/listen' },
    JSON.stringify({ jsonrpc: '2.0', id: `listen-${i}`, method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: [cfg.uri] }, _meta: META } }));

let round = { index: -1, t0: 0, member: -1 };
let received = 0;
const latencies = { cross: [], local: [] };
let duplicates = 0;
let closed = 0;

// Every socket reads into this one buffer (`onread`): each callback is done with it before the next
// read, and no chunk is allocated, so the load process's own garbage stays out of the latencies.
const READ_BUFFER = Buffer.alloc(64 * 1024);
const MARK_BYTES = Buffer.from(MARK, 'latin1');
const ACK_BYTES = Buffer.from('acknowledged', 'latin1');

/** How many times `mark` occurs in `carry` + `bytes` (a mark may straddle two reads). */
function occurrences(carry, bytes, mark) {
  const text = carry.length ? Buffer.concat([carry, bytes]) : bytes;
  let n = 0;
  for (let at = text.indexOf(mark); at >= 0; at = text.indexOf(mark, at + mark.length)) n++;
  return { n, carry: Buffer.from(text.subarray(Math.max(0, text.length - mark.length + 1))) };
}

/** One listen stream: resolves when acknowledged; then counts the updates it receives per round. */
function openStream(i) {
  const member = i % cfg.ports.length;
  const stream = { member, lastRound: -2 };
  return new Promise((resolve, reject) => {
    let acked = false;
    let carry = Buffer.alloc(0);
    const onData = (length, buffer) => {
      const now = performance.now();
      const bytes = buffer.subarray(0, length);
      const seen = occurrences(carry, bytes, acked ? MARK_BYTES : ACK_BYTES);
      carry = seen.carry;
      if (!acked) {
        if (seen.n === 0) return;
        acked = true;
        carry = Buffer.alloc(0);
        clearTimeout(timer);
        return resolve({ socket, stream });
      }
      for (let k = 0; k < seen.n; k++) {
        if (stream.lastRound === round.index) duplicates++;
        else {
          stream.lastRound = round.index;
          received++;
          latencies[member === round.member ? 'local' : 'cross'].push(now - round.t0);
        }
      }
    };
    const socket = connect({ host, port: cfg.ports[member], noDelay: true, onread: { buffer: READ_BUFFER, callback: onData } });
    const timer = setTimeout(() => reject(new Error(`stream ${i} not acknowledged in 20 s`)), 20_000);
    socket.on('error', (error) => (acked ? undefined : reject(error)));
    socket.on('close', () => acked && closed++);
    socket.write(listenBytes(cfg.ports[member], i));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function trigger(member, id) {
  const port = cfg.ports[member];
  const conn = triggers[member];
  return new Promise((resolve) =>
    conn.send(postBytes(host, port, '/mcp', cfg.headers, callBody(id, 'fanout_touch', false)), (error, res) =>
      resolve(error ? error.message : res.status !== 200 ? `HTTP ${res.status}` : checkHttpAnswer(res.body, res.type.startsWith('text/event-stream'), id, 'ok', false))),
  );
}

const triggers = cfg.ports.map((port) => new Connection(host, port));
const t0 = performance.now();
const sockets = [];
for (let i = 0; i < cfg.streams; i += 50) {
  const batch = await Promise.all(Array.from({ length: Math.min(50, cfg.streams - i) }, (_, k) => openStream(i + k)));
  sockets.push(...batch);
}
const openMs = performance.now() - t0;
/** One round: member `r % n` raises the change; waits until every stream has it (or the timeout). */
async function runRound(r) {
  const before = received;
  round = { index: r, t0: performance.now(), member: ((r % cfg.ports.length) + cfg.ports.length) % cfg.ports.length };
  const wrong = await trigger(round.member, r + 2);
  const deadline = performance.now() + cfg.roundTimeoutMs;
  while (received - before < cfg.streams && performance.now() < deadline) await sleep(1);
  await sleep(10); // a late duplicate lands here, in its own round
  return { wrong, missed: cfg.streams - (received - before) };
}

// A first round, not counted: warms every path (the JIT, Redis connections) before the measured ones.
await runRound(-1);
received = 0;
duplicates = 0;
latencies.cross.length = 0;
latencies.local.length = 0;

const cpu0 = process.cpuUsage();
const roundsStarted = performance.now();
let missed = 0;
const triggerErrors = [];
for (let r = 0; r < cfg.rounds; r++) {
  const outcome = await runRound(r);
  if (outcome.wrong) triggerErrors.push(outcome.wrong);
  missed += outcome.missed;
}
const cpu = process.cpuUsage(cpu0);
const roundsSeconds = (performance.now() - roundsStarted) / 1000;
for (const { socket } of sockets) socket.destroy();
for (const c of triggers) c.close();

const summary = (values) => {
  const sorted = Float64Array.from(values).sort();
  return { count: sorted.length, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99), maxMs: sorted[sorted.length - 1] ?? NaN };
};
process.stdout.write(`${JSON.stringify({
  streams: sockets.length, openMs, rounds: cfg.rounds, expected: cfg.rounds * cfg.streams, received, missed, duplicates, closedEarly: closed,
  cross: summary(latencies.cross), local: summary(latencies.local), all: summary([...latencies.cross, ...latencies.local]),
  triggerErrors: triggerErrors.slice(0, 3), clientCpuPct: (cpu.user + cpu.system) / 1e4 / roundsSeconds,
})}\n`);
process.exit(0);
