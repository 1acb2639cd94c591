#!/usr/bin/env node
/**
 * `node bench/dpop-cache.mjs [--no-redis]` (after `npm run build`): what the DPoP replay cache costs
 * one request when the store is at its bound, on the built package (dist/).
 *
 * The store is filled the way a few busy principals would: 10 principals × 10,000 live proof ids
 * (the default bounds). Then, per call:
 *   memory, newcomer:  a principal that holds nothing asks to keep one id
 *   memory, heavy:     one of the 10 full principals asks again (refused)
 *   memory, full:      the store holds maxTotalProofs ids (the 10, then 100 principals of 500 ids each) and a newcomer asks
 *   memory, steady:    ids expire as time goes on and 10 principals keep asking (the sweep's cost)
 *   redis, newcomer / heavy: the same two, one script round trip each, and the redis-server's CPU
 * Times are wall time per call on a shared machine (noisy), with the redis-server's own CPU apart.
 */
import { parseArgs } from 'node:util';
import { startRedis } from '../scripts/cluster-kit.mjs';
import { cpuMicros } from './lib/proc.mjs';

const { values: opt } = parseArgs({ options: { 'no-redis': { type: 'boolean', default: false } } });
const { MemoryProofStore } = await import('../dist/index.js');

const PRINCIPALS = 10;
const PER = 10_000;
const FAR = Date.now() + 3_600_000;

function timed(n, fn) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

function memory() {
  const full = () => {
    const store = new MemoryProofStore();
    for (let p = 0; p < PRINCIPALS; p++) for (let i = 0; i < PER; i++) store.remember(`heavy-${p}`, `j${i}`, FAR, 0);
    return store;
  };
  let store = full();
  const verdicts = new Map();
  const count = (v) => verdicts.set(v, (verdicts.get(v) ?? 0) + 1);
  const newcomer = timed(2_000, (i) => count(`newcomer ${store.remember(`new-${i}`, 'x', FAR, 1)}`));
  store = full();
  const heavy = timed(2_000, (i) => count(`heavy ${store.remember('heavy-0', `again-${i}`, FAR, 1)}`));
  store = full();
  for (let p = 0; p < 100; p++) for (let i = 0; i < 500; i++) store.remember(`light-${p}`, `l${i}`, FAR, 0);
  const fullSize = store.size;
  const atTotal = timed(2_000, (i) => count(`full ${store.remember(`late-${i}`, 'x', FAR, 1)}`));
  // Steady: each id lives 60 s of a simulated clock; 10 principals ask 2,000 times a simulated second.
  store = new MemoryProofStore();
  let t = 0;
  for (let i = 0; i < 200_000; i++) store.remember(`p${i % PRINCIPALS}`, `w${i}`, (t = i / 2) + 60_000, t);
  const steady = timed(50_000, (i) => count(`steady ${store.remember(`p${i % PRINCIPALS}`, `s${i}`, t + i / 2 + 60_000, t + i / 2)}`));
  return { newcomer, heavy, atTotal, fullSize, steady, verdicts: Object.fromEntries(verdicts) };
}

async function redis() {
  const { redisState } = await import('../dist/redis/index.js');
  const server = await startRedis();
  const state = await redisState({ url: server.url, prefix: 'bench:', onError: () => {} });
  try {
    const fill = Date.now();
    for (let p = 0; p < PRINCIPALS; p++) {
      for (let i = 0; i < PER; i += 500) {
        await Promise.all(Array.from({ length: 500 }, (_, k) => state.proofs.remember(`heavy-${p}`, `j${i + k}`, FAR)));
      }
    }
    const fillMs = Date.now() - fill;
    const pid = server.pid;
    const verdicts = new Map();
    const one = async (label, n, call) => {
      const cpu0 = pid ? cpuMicros(pid) : 0;
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        const v = await call(i);
        verdicts.set(`${label} ${v}`, (verdicts.get(`${label} ${v}`) ?? 0) + 1);
      }
      const wall = Number(process.hrtime.bigint() - start) / 1000 / n;
      return { wallUs: wall, redisCpuUs: pid ? (cpuMicros(pid) - cpu0) / n : undefined };
    };
    const heavy = await one('heavy', 2_000, (i) => state.proofs.remember('heavy-0', `again-${i}`, FAR));
    const newcomer = await one('newcomer', 2_000, (i) => state.proofs.remember(`new-${i}`, 'x', FAR));
    return { fillMs, newcomer, heavy, verdicts: Object.fromEntries(verdicts) };
  } finally {
    await state.close();
    await server.stop();
  }
}

const round = (x) => (typeof x === 'number' ? Math.round(x * 100) / 100 : x);
const mem = memory();
console.log(`memory store at the bound (${PRINCIPALS} × ${PER.toLocaleString('en')} ids), µs per call:`);
console.log(`  newcomer ${round(mem.newcomer)}  heavy principal ${round(mem.heavy)}  steady with expiry ${round(mem.steady)}`);
console.log(`  full (${mem.fullSize.toLocaleString('en')} ids kept): newcomer ${round(mem.atTotal)}`);
console.log('  verdicts', mem.verdicts);
if (!opt['no-redis']) {
  const r = await redis();
  console.log(`redis store at the bound (filled in ${r.fillMs} ms), µs per call (wall / redis-server CPU):`);
  console.log(`  newcomer ${round(r.newcomer.wallUs)} / ${round(r.newcomer.redisCpuUs)}  heavy principal ${round(r.heavy.wallUs)} / ${round(r.heavy.redisCpuUs)}`);
  console.log('  verdicts', r.verdicts);
}
