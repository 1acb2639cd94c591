/**
 * Issue 15: cross-instance fan-out latency. 3 Redis-backed members, 1,000 2026 `subscriptions/listen`
 * streams spread over them (opened on the members directly, so the load process knows where each
 * lives); each round one member (rotating) raises `notifyResourceUpdated()` and every stream must get
 * `notifications/resources/updated` once. Latency: from writing the request that raises the change to
 * the notification's arrival, p50/p99 over the streams on the other members (and, apart, the same
 * member's; with Redis those go through Redis too). Goal on loopback: p99 <= 5 ms. For reference,
 * the same streams on one process with the memory state (no Redis): what delivery alone costs.
 */
import { HEADERS } from '../targets.mjs';
import { clusterMissing, startCluster, startStandalone } from './cluster-setup.mjs';
import { tableOf } from './table.mjs';

async function run({ opts, args, here, pinned, runLoad }) {
  const missing = clusterMissing();
  if (missing) return { skipped: missing };
  const streams = Number(args.streams ?? 1000);
  const rounds = Number(args['fanout-rounds'] ?? (opts.quick ? 30 : 200));
  const load = (ports) => runLoad('fanout.mjs', { ports, streams, rounds, uri: 'bench://fanout', roundTimeoutMs: 2_000, headers: HEADERS });
  const cluster = await startCluster({ size: 3, here, pinned });
  let r;
  try {
    r = await load(cluster.members.map((m) => m.port));
  } finally {
    await cluster.stop();
  }
  if (r.failed) return { failed: r.failed };
  console.log(`  ${r.streams} streams over 3 members, ${r.rounds} rounds: cross-instance p50 ${r.cross.p50Ms.toFixed(2)} ms, p99 ${r.cross.p99Ms.toFixed(2)} ms; missed ${r.missed}, duplicates ${r.duplicates}`);
  const single = await startStandalone({ here, pinned });
  let reference;
  try {
    reference = await load([single.port]);
  } finally {
    await single.stop();
  }
  console.log(`  reference, 1 process on the memory state: p50 ${reference.all?.p50Ms?.toFixed(2)} ms, p99 ${reference.all?.p99Ms?.toFixed(2)} ms; missed ${reference.missed}`);
  return { ...r, reference };
}

const fmt = (v, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '-');

function render(r) {
  const row = (name, s) => [name, s.count, fmt(s.p50Ms), fmt(s.p99Ms), fmt(s.maxMs)];
  const ref = r.reference;
  const refRow = ref?.all ? [row(`reference: 1 process, memory state (missed ${ref.missed}, duplicates ${ref.duplicates})`, ref.all)] : [];
  const table = tableOf(['streams', 'notifications', 'p50 ms', 'p99 ms', 'max ms'], [row('on the other members (cross-instance)', r.cross), row('on the member that raised it', r.local), row('all', r.all), ...refRow]);
  return (
    `${r.streams} listen streams over 3 members (opened in ${Math.round(r.openMs)} ms), ${r.rounds} rounds, from the change's request to each notification. ` +
    `Received ${r.received} of ${r.expected}, missed ${r.missed}, duplicates ${r.duplicates}, streams closed early ${r.closedEarly}` +
    `${r.triggerErrors.length ? `, trigger errors: ${r.triggerErrors.join(' | ')}` : ''}; load process CPU ${Math.round(r.clientCpuPct)} % during the rounds.\n\n${table}`
  );
}

export const fanoutScenario = { name: 'fanout', title: 'Cluster fan-out: notifyResourceUpdated() on one member to listen streams on the others', run, render };
