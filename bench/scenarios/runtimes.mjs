/**
 * Issue 16's per-runtime rows: `tools/call` noop over HTTP (JSON path) with MiniMCP on Node 20/22/24
 * (`serve()`, node:http), Bun (`Bun.serve`) and Deno (`Deno.serve`), each against its own runtime's
 * bare floor (floor-http.mjs on that Node, floor-fetch.mjs on Bun and Deno), so the overhead reads as a
 * ratio per runtime. The binaries are the ones runtimes/ pins (scripts/runtimes.mjs installs them);
 * a runtime whose binary is missing is skipped with one line. `--runtimes=bun,deno` narrows the set.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { DENO_RUN, RUNTIME_BINS } from '../../scripts/runtime-bins.mjs';
import { ratioOf, rotate, tableOf } from './table.mjs';

const built = (name) => `results/tmp/build/bench/servers/${name}`;

const node = (name, bin) => ({
  name,
  bin,
  floor: { file: 'servers/floor-http.mjs' },
  minimcp: { file: built('minimcp-http.js'), env: { MODE: 'json' } },
});
const RUNTIMES = [
  node(`node${process.versions.node.split('.')[0]}`, process.execPath),
  node('node22', RUNTIME_BINS.node22),
  node('node24', RUNTIME_BINS.node24),
  { name: 'bun', bin: RUNTIME_BINS.bun, args: ['run'], floor: { file: 'servers/floor-fetch.mjs' }, minimcp: { file: built('minimcp-fetch.js') } },
  { name: 'deno', bin: RUNTIME_BINS.deno, args: DENO_RUN, floor: { file: 'servers/floor-fetch.mjs' }, minimcp: { file: built('minimcp-fetch.js') } },
];

const versionOf = (bin) => {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim().replace(/^deno /, '').split(/\s/)[0];
  } catch {
    return 'unknown';
  }
};

async function run({ opts, args, startHttpServer, runLoad }) {
  const wanted = typeof args.runtimes === 'string' ? args.runtimes.split(',') : undefined;
  const runtimes = RUNTIMES.filter((r) => !wanted || wanted.includes(r.name));
  const missing = runtimes.filter((r) => !existsSync(r.bin)).map((r) => r.name);
  if (missing.length) console.log(`  SKIP ${missing.join(', ')}: binary not installed (npm ci --prefix runtimes)`);
  const present = runtimes.filter((r) => existsSync(r.bin));
  if (!present.length) return { skipped: 'no runtime binary installed (npm ci --prefix runtimes)' };
  const servers = present.flatMap((r) => ['floor', 'minimcp'].map((role) => ({ runtime: r.name, role, name: `${r.name}-${role}`, bin: r.bin, args: r.args, ...r[role] })));
  // --quick: c=64 only, so the scenario stays under a minute; a given --concurrency wins.
  const concurrency = opts.quick && typeof args.concurrency !== 'string' ? [64] : opts.concurrency;
  const raw = [];
  for (const [i, c] of concurrency.entries()) {
    for (const t of rotate(servers, i)) {
      const server = await startHttpServer(t);
      const r = server.error
        ? { failed: server.error }
        : await runLoad('http.mjs', { port: server.port, path: '/mcp', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' }, tool: 'noop', expected: 'ok', concurrency: c, warmupMs: opts.warmupMs, durationMs: opts.durationMs, pid: server.pid });
      await server.stop?.();
      raw.push({ runtime: t.runtime, role: t.role, concurrency: c, ...r });
      console.log(`  ${t.name.padEnd(16)} c=${c} ${Math.round(r.rps ?? NaN)} req/s  p99 ${r.p99Ms?.toFixed(2)} ms  cpu ${r.cpuUsPerReq?.toFixed(1)} µs/req${r.errors || r.failed ? `  ERRORS ${r.errors ?? ''} ${(r.errorSamples ?? [r.failed]).join(' | ').slice(0, 200)}` : ''}`);
    }
  }
  const rows = present.flatMap((r) =>
    concurrency.map((c) => {
      const floor = raw.find((x) => x.runtime === r.name && x.role === 'floor' && x.concurrency === c);
      const mini = raw.find((x) => x.runtime === r.name && x.role === 'minimcp' && x.concurrency === c);
      return { runtime: r.name, version: versionOf(r.bin), concurrency: c, floor, minimcp: mini, rpsRatio: ratioOf(mini?.rps, floor?.rps), cpuRatio: ratioOf(mini?.cpuUsPerReq, floor?.cpuUsPerReq) };
    }),
  );
  return { rows, skippedRuntimes: missing };
}

const fmt = (v, d = 0) => (Number.isFinite(v) ? v.toFixed(d) : '-');
const x = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : 'n/a');
const errs = (r) => (r?.failed ? 'failed' : String(r?.errors ?? '-'));

function render({ rows, skippedRuntimes }) {
  const table = tableOf(
    ['runtime', 'c', 'floor req/s', 'MiniMCP req/s', 'req/s × floor', 'floor CPU µs/req', 'MiniMCP CPU µs/req', 'CPU × floor', 'MiniMCP p50 / p99 ms', 'errors'],
    rows.map((r) => [`${r.runtime} ${r.version}`, r.concurrency, fmt(r.floor?.rps), fmt(r.minimcp?.rps), x(r.rpsRatio), fmt(r.floor?.cpuUsPerReq, 1), fmt(r.minimcp?.cpuUsPerReq, 1), x(r.cpuRatio), `${fmt(r.minimcp?.p50Ms, 2)} / ${fmt(r.minimcp?.p99Ms, 2)}`, `${errs(r.floor)} / ${errs(r.minimcp)}`]),
  );
  const skipped = skippedRuntimes.length ? `\nNot run (binary missing): ${skippedRuntimes.join(', ')}.\n` : '';
  return `tools/call noop, JSON path, each runtime against its own bare floor (Node: node:http; Bun: Bun.serve; Deno: Deno.serve). Errors: floor / MiniMCP.\n\n${table}${skipped}`;
}

export const runtimesScenario = { name: 'runtimes', title: 'Per runtime: MiniMCP against the runtime\'s own floor', run, render };
