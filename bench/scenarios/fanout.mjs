/**
 * Issue 15: cross-instance fan-out latency. 3 Redis-backed members, 1,000 2026 `subscriptions/listen`
 * streams spread over them (opened on the members directly, so the load process knows where each
 * lives); each round one member (rotating) raises `notifyResourceUpdated()` and every stream must get
 * `notifications/resources/updated` once. Latency: from writing the request that raises the change to
 * the notification's arrival, p50/p99 over the streams on the other members (and, apart, the same
 * member's; with Redis those go through Redis too). Goal on loopback: p99 <= 5 ms. For reference,
 * the same streams on one process with the memory state (no Redis), and the floors: the same load
 * against node:http processes with no MCP (bench/servers/floor-fanout.mjs), alone and on Redis.
 */
import { HEADERS } from '../targets.mjs';
import { FLOOR_MEMBER, clusterMissing, startCluster, startStandalone } from './cluster-setup.mjs';
import { tableOf } from './table.mjs';

async function run({ opts, args, here, pinned, runLoad }) {
  const missing = clusterMissing();
  if (missing) return { skipped: missing };
  const streams = Number(args.streams ?? 1000);
  const rounds = Number(args['fanout-rounds'] ?? (opts.quick ? 30 : 200));
  const load = (ports) => runLoad('fanout.mjs', { ports, streams, rounds, uri: 'bench://fanout', roundTimeoutMs: 2_000, headers: HEADERS });
  /** The load against what `start()` started, stopped afterwards whatever happens. */
  const measure = async (start, ports) => {
    const started = await start();
    try {
      return await load(ports(started));
    } finally {
      await started.stop();
    }
  };
  const members = (c) => c.members.map((m) => m.port);
  const r = await measure(() => startCluster({ size: 3, here, pinned }), members);
  if (r.failed) return { failed: r.failed };
  console.log(`  ${r.streams} streams over 3 members, ${r.rounds} rounds: cross-instance p50 ${fmt(r.cross.p50Ms)} ms, p99 ${fmt(r.cross.p99Ms)} ms; missed ${r.missed}, duplicates ${r.duplicates}`);
  // The floors: the same topologies and load with no MCP at all (node:http writing to its streams).
  const floor = await measure(() => startCluster({ size: 3, here, pinned, script: FLOOR_MEMBER }), members);
  console.log(`  floor, 3 node:http processes on Redis pub/sub: cross-instance p50 ${fmt(floor.cross?.p50Ms)} ms, p99 ${fmt(floor.cross?.p99Ms)} ms; missed ${floor.missed}`);
  const reference = await measure(() => startStandalone({ here, pinned }), (m) => [m.port]);
  console.log(`  1 process on the memory state: p50 ${fmt(reference.all?.p50Ms)} ms, p99 ${fmt(reference.all?.p99Ms)} ms; missed ${reference.missed}`);
  const singleFloor = await measure(() => startStandalone({ here, pinned, script: FLOOR_MEMBER }), (m) => [m.port]);
  console.log(`  floor, 1 node:http process: p50 ${fmt(singleFloor.all?.p50Ms)} ms, p99 ${fmt(singleFloor.all?.p99Ms)} ms; missed ${singleFloor.missed}`);
  return { ...r, floor, reference, singleFloor };
}

const fmt = (v, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '-');

function render(r) {
  const row = (name, s, of) => [name, s?.count ?? '-', fmt(s?.p50Ms), fmt(s?.p99Ms), fmt(s?.maxMs), of ? `missed ${of.missed}, duplicates ${of.duplicates}` : ''];
  const rows = [
    row('MiniMCP, 3 members on Redis: streams on the other members (cross-instance)', r.cross, r),
    row('MiniMCP, 3 members on Redis: streams on the member that raised it', r.local),
    row('floor, 3 node:http processes on Redis pub/sub, no MCP: cross-instance', r.floor?.cross, r.floor),
    row('MiniMCP, 1 process, memory state', r.reference?.all, r.reference),
    row('floor, 1 node:http process, no MCP', r.singleFloor?.all, r.singleFloor),
  ];
  const table = tableOf(['setup', 'notifications', 'p50 ms', 'p99 ms', 'max ms', 'delivery'], rows);
  return (
    `${r.streams} listen streams (opened in ${Math.round(r.openMs)} ms), ${r.rounds} rounds, from the change's request to each notification. ` +
    `Received ${r.received} of ${r.expected}, missed ${r.missed}, duplicates ${r.duplicates}, streams closed early ${r.closedEarly}` +
    `${r.triggerErrors.length ? `, trigger errors: ${r.triggerErrors.join(' | ')}` : ''}; load process CPU ${Math.round(r.clientCpuPct)} % during the rounds. ` +
    'The floors are the same load against node:http processes that write one event to each stream and do nothing else: ' +
    `what this machine costs before any framework.\n\n${table}`
  );
}

export const fanoutScenario = { name: 'fanout', title: 'Cluster fan-out: notifyResourceUpdated() on one member to listen streams on the others', run, render };
