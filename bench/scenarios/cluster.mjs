/**
 * Issue 15: `tools/call` noop through nginx (round-robin, no affinity) to 1 and to 3 Redis-backed
 * members, and to 1 member directly (what nginx costs). Throughput, latency, and CPU per request of
 * the members, nginx and Redis apart and in total. On a machine with 2 CPUs every server process
 * shares CPU 1: 3 members cannot add throughput there, and the CPU per request shows what splitting
 * the load costs. On more CPUs the members spread over CPUs 1..n-1.
 */
import { HEADERS } from '../targets.mjs';
import { clusterMissing, startCluster } from './cluster-setup.mjs';
import { ratioOf, tableOf } from './table.mjs';

async function run({ opts, args, here, pinned, runLoad }) {
  const missing = clusterMissing();
  if (missing) return { skipped: missing };
  const concurrency = opts.quick && typeof args.concurrency !== 'string' ? [64] : opts.concurrency;
  const cluster = await startCluster({ size: 3, here, pinned });
  const rows = [];
  try {
    const [first] = cluster.members;
    const one = await cluster.balance([first]);
    const three = await cluster.balance(cluster.members);
    const setups = [
      { name: '1 member, direct', port: first.port, members: [first], nginx: [] },
      { name: '1 member via nginx', port: one.port, members: [first], nginx: one.workerPids },
      { name: '3 members via nginx', port: three.port, members: cluster.members, nginx: three.workerPids },
    ];
    for (const c of concurrency) {
      for (const s of setups) {
        const groups = { members: s.members.map((m) => m.pid), nginx: s.nginx, redis: [cluster.redis.pid].filter(Boolean) };
        const r = await runLoad('http.mjs', {
          port: s.port, path: '/mcp', headers: HEADERS, tool: 'noop', expected: 'ok', concurrency: c,
          warmupMs: opts.warmupMs, durationMs: opts.durationMs, pid: Object.values(groups).flat(), cpuGroups: groups,
        });
        rows.push({ setup: s.name, concurrency: c, ...r });
        const by = r.cpuUsPerReqBy ?? {};
        console.log(`  ${s.name.padEnd(20)} c=${c} ${Math.round(r.rps ?? NaN)} req/s  p99 ${r.p99Ms?.toFixed(2)} ms  cpu ${r.cpuUsPerReq?.toFixed(1)} µs/req (members ${by.members?.toFixed(1)}, nginx ${by.nginx?.toFixed(1)})${r.errors || r.failed ? `  ERRORS ${r.errors ?? ''} ${(r.errorSamples ?? [r.failed]).join(' | ').slice(0, 200)}` : ''}`);
      }
    }
  } finally {
    await cluster.stop();
  }
  return { rows };
}

const fmt = (v, d = 0) => (Number.isFinite(v) ? v.toFixed(d) : '-');

function render({ rows }) {
  const table = tableOf(
    ['setup', 'c', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req total', 'members', 'nginx', 'Redis', 'req/s × 1 via nginx', 'errors'],
    rows.map((r) => {
      const base = rows.find((b) => b.setup === '1 member via nginx' && b.concurrency === r.concurrency);
      const by = r.cpuUsPerReqBy ?? {};
      return [r.setup, r.concurrency, fmt(r.rps), fmt(r.p50Ms, 2), fmt(r.p99Ms, 2), fmt(r.cpuUsPerReq, 1), fmt(by.members, 1), fmt(by.nginx, 1), fmt(by.redis, 1), `${ratioOf(r.rps, base?.rps).toFixed(2)}x`, r.failed ? 'failed' : r.errors];
    }),
  );
  return `tools/call noop (2025-11-25, no session: no shared state is touched), members on Redis. CPU per request: all server processes, then each group.\n\n${table}`;
}

export const clusterScenario = { name: 'cluster', title: 'Cluster: 1 vs 3 Redis-backed members behind nginx', run, render };
