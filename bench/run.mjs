#!/usr/bin/env node
/**
 * `npm run bench [-- options]`: builds MiniMCP, measures cold starts, then runs every
 * (transport, workload, concurrency) cell round-robin over the servers (a fresh server process per
 * cell, driven by a separate load process) and writes bench/results/latest.{json,md,svg}.
 *
 *   --quick               concurrency 64 and 256, 0.3 s warm-up + 1 s windows, 3 cold starts
 *   --only=a,b            only these targets (names in targets.mjs; the floors are always kept)
 *   --workloads=noop,io   --concurrency=1,64   --duration=ms   --warmup=ms   --cold=N   --rounds=N
 *   --transport=http|stdio   --no-pin (don't pin server and load to separate CPUs)
 *   --no-build            use dist/ and the compiled bench servers as they are (a rerun right after a build)
 *
 * After the matrix come the scenarios of bench/scenarios/ (per runtime, cluster, fan-out, tasks); each
 * is selected by its name in --only too. An --only that names scenarios only skips the matrix.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from './lib/build.mjs';
import { machine } from './lib/proc.mjs';
import { probe } from './lib/probe.mjs';
import { freePort, pinning, runLoad as runLoadOn } from './lib/processes.mjs';
import { renderMarkdown, targetRatios } from './lib/report.mjs';
import { median } from './lib/stats.mjs';
import { installedSize, minimcpSize } from './lib/size.mjs';
import { renderSvg } from './lib/svg.mjs';
import { renderScenarios, runScenarios, SCENARIOS } from './scenarios/index.mjs';
import { EXPECTED } from './servers/work.mjs';
import { HEADERS, HTTP_TARGETS, STDIO_TARGETS, WORKLOADS } from './targets.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? true];
  }),
);
const quick = Boolean(args.quick);
const list = (v, fallback) => (typeof v === 'string' ? v.split(',').filter(Boolean) : fallback);
const custom = ['only', 'workloads', 'concurrency', 'duration', 'warmup', 'transport'].some((k) => k in args);
const opts = {
  quick,
  mode: quick ? 'quick' : custom ? 'partial' : 'full',
  concurrency: list(args.concurrency, quick ? ['64', '256'] : ['1', '16', '64', '256']).map(Number),
  workloads: list(args.workloads, WORKLOADS),
  warmupMs: Number(args.warmup ?? (quick ? 300 : 1000)),
  durationMs: Number(args.duration ?? (quick ? 1000 : 3000)),
  coldRuns: Number(args.cold ?? (quick ? 3 : 7)),
  rounds: Number(args.rounds ?? 1),
  pin: !args['no-pin'] && existsSync('/usr/bin/taskset') && machine().nproc >= 2,
};
const only = list(args.only, undefined);
const scenarios = SCENARIOS.filter((s) => !only || only.includes(s.name));
const matrix = !only || only.some((name) => !SCENARIOS.some((s) => s.name === name));
const chosen = (t) => !only || only.includes(t.name);
// The floors always run (a floor made for one target, `floorFor`, only with it).
const keep = (t) => matrix && (t.role === 'floor' ? !t.floorFor || chosen(HTTP_TARGETS.find((f) => f.name === t.floorFor)) : chosen(t));
const transports = list(args.transport, ['http', 'stdio']);
const httpTargets = transports.includes('http') ? HTTP_TARGETS.filter(keep) : [];
const stdioTargets = transports.includes('stdio') ? STDIO_TARGETS.filter(keep) : [];

// With 2 cores or more, the server gets CPU 1 and the load process CPU 0, so they don't trade places.
const pinned = pinning(opts.pin);
// `bin` and `args` run a target on another runtime than this Node (the per-runtime scenario).
const serverCmd = (t) => pinned(1, [t.bin ?? process.execPath, ...(t.args ?? []), `${here}${t.file}`]);
const headersOf = (t) => ({ ...HEADERS, ...t.headers });
const runLoad = (script, config) => runLoadOn(pinned, script, config);

async function startHttpServer(t) {
  const port = await freePort();
  const cmd = serverCmd(t);
  const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...t.env, PORT: String(port) } });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  const up = await probe({ port, path: '/mcp', headers: headersOf(t), retryMs: 20, timeoutMs: 20_000 });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      child.once('exit', () => (clearTimeout(timer), resolve()));
      child.kill('SIGTERM');
    });
  if (!up.ok) {
    await stop();
    return { error: `did not start: ${up.error} ${stderr.trim().slice(-300)}` };
  }
  return { port, pid: child.pid, stop, stderr: () => stderr };
}

async function measureCell(transport, t, workload, c) {
  const common = { tool: workload + (t.toolSuffix ?? ''), expected: EXPECTED[workload], concurrency: c, warmupMs: opts.warmupMs, durationMs: opts.durationMs };
  if (transport === 'stdio') return runLoad('stdio.mjs', { ...common, cmd: serverCmd(t), init: t.init ?? false });
  const server = await startHttpServer(t);
  if (server.error) return { failed: server.error };
  const result = await runLoad('http.mjs', { ...common, port: server.port, path: '/mcp', headers: headersOf(t), progress: t.progress ?? false, pid: server.pid });
  await server.stop();
  return result;
}

async function coldStarts() {
  const targets = [...httpTargets.map((t) => ['http', t]), ...stdioTargets.map((t) => ['stdio', t])].filter(([, t]) => !t.noColdStart);
  const runs = new Map(targets.map(([, t]) => [t.name, []]));
  for (let i = 0; i < opts.coldRuns; i++) {
    for (const [kind, t] of targets) {
      const port = kind === 'http' ? await freePort() : undefined;
      const r = await runLoad('coldstart.mjs', { kind, cmd: serverCmd(t), env: t.env, port, path: '/mcp', headers: headersOf(t), init: t.init ?? false });
      runs.get(t.name).push(r);
      if (!r.ok) console.error(`  cold start ${t.name}: ${r.error ?? r.failed}`);
    }
  }
  return [...runs].map(([name, rs]) => ({
    target: name,
    ms: median(rs.filter((r) => r.ok).map((r) => r.ms)),
    rssKb: median(rs.filter((r) => r.ok).map((r) => r.rssKb)),
    failures: rs.filter((r) => !r.ok).length,
  }));
}

function versions() {
  const pkgs = new Set([...HTTP_TARGETS, ...STDIO_TARGETS].flatMap((t) => t.pkgs).filter((p) => p !== 'minimcp'));
  const out = { minimcp: JSON.parse(readFileSync(`${here}../package.json`, 'utf8')).version };
  for (const p of [...pkgs].sort()) {
    try {
      out[p] = JSON.parse(readFileSync(`${here}../node_modules/${p}/package.json`, 'utf8')).version;
    } catch {
      out[p] = 'not installed';
    }
  }
  return out;
}

/** One row per cell; several rounds collapse to their median. */
function aggregate(raw) {
  const groups = new Map();
  for (const r of raw) {
    const key = `${r.transport}|${r.target}|${r.workload}|${r.concurrency}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const order = [...HTTP_TARGETS, ...STDIO_TARGETS].map((t) => t.name);
  const rank = (r) => order.indexOf(r.target);
  return [...groups.values()].sort((a, b) => rank(a[0]) - rank(b[0])).map((rs) => {
    const row = { ...rs[0] };
    for (const k of ['rps', 'p50Ms', 'p99Ms', 'cpuUsPerReq', 'clientCpuUsPerReq', 'serverCpuPct', 'clientCpuPct', 'peakRssKb']) row[k] = median(rs.map((r) => r[k]));
    row.errors = rs.reduce((n, r) => n + (r.errors ?? 0), 0);
    row.completed = rs.reduce((n, r) => n + (r.completed ?? 0), 0);
    row.errorSamples = [...new Set(rs.flatMap((r) => r.errorSamples ?? (r.failed ? [r.failed] : [])))].slice(0, 3);
    return row;
  });
}

const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');

async function main() {
  const started = Date.now();
  if (args['no-build']) console.log('Not building (--no-build): dist/ and bench/results/tmp/build/ as they are');
  else {
    console.log('Building MiniMCP (dist/, as published, and the bench servers that load it)...');
    build();
  }
  const info = { date: new Date().toISOString(), machine: machine(), versions: versions(), options: opts };
  console.log(`${info.machine.cpu}, ${info.machine.nproc} CPUs, Node ${info.machine.node}, load ${info.machine.loadavg}${opts.pin ? ', server pinned to CPU 1, load to CPU 0' : ''}`);

  if (matrix) console.log(`Cold starts (${opts.coldRuns} runs each, round-robin)...`);
  const cold = await coldStarts();

  const cells = [];
  for (let round = 0; round < opts.rounds; round++)
    for (const [transport, targets] of [['http', httpTargets], ['stdio', stdioTargets]])
      for (const workload of opts.workloads)
        for (const c of opts.concurrency) cells.push({ round, transport, targets, workload, c });
  const raw = [];
  let i = 0;
  for (const { round, transport, targets, workload, c } of cells) {
    i++;
    // Rotate the order inside each cell so no server always runs right after the same neighbour.
    const shift = i % targets.length;
    for (const t of [...targets.slice(shift), ...targets.slice(0, shift)]) {
      const r = await measureCell(transport, t, workload, c);
      raw.push({ round, transport, target: t.name, role: t.role, workload, concurrency: c, ...r });
      const errs = (r.errors ?? 0) > 0 || r.failed ? `  ERRORS ${r.errors ?? ''} ${(r.errorSamples ?? [r.failed]).join(' | ').slice(0, 200)}` : '';
      console.log(
        `[${i}/${cells.length}] ${transport} ${workload} c=${c} ${t.name.padEnd(19)} ${fmt(r.rps).padStart(7)} req/s  p50 ${fmt(r.p50Ms, 2)} ms  p99 ${fmt(r.p99Ms, 2)} ms  cpu ${fmt(r.cpuUsPerReq, 1)} µs/req${errs}`,
      );
    }
  }

  const scenarioResults = await runScenarios(scenarios, { opts, args, here, pinned, freePort, runLoad, startHttpServer });
  const outDir = `${here}results/`;
  mkdirSync(outDir, { recursive: true });
  const elapsedSeconds = () => Math.round((Date.now() - started) / 1000);
  if (scenarioResults.length) {
    // The scenarios have files of their own, so a run of them alone leaves the matrix's report as it was.
    writeFileSync(`${outDir}scenarios.json`, `${JSON.stringify({ ...info, elapsedSeconds: elapsedSeconds(), scenarios: scenarioResults }, null, 2)}\n`);
    writeFileSync(`${outDir}scenarios.md`, `# MiniMCP benchmark scenarios\n\n${info.date} · ${info.machine.cpu} · nproc ${info.machine.nproc} · Node ${info.machine.node} · load average at start ${info.machine.loadavg} · mode ${opts.mode}\n${renderScenarios(scenarioResults)}`);
  }
  if (!matrix) return console.log(`Done in ${elapsedSeconds()} s: bench/results/scenarios.md, scenarios.json`);

  const sizes = [minimcpSize(), ...['@modelcontextprotocol/server', '@modelcontextprotocol/sdk', 'mcp-lite', 'tmcp', '@tmcp/transport-http'].map(installedSize).filter(Boolean)];
  const results = { ...info, elapsedSeconds: elapsedSeconds(), cold, sizes, cells: aggregate(raw), raw, scenarios: scenarioResults };
  results.ratios = targetRatios(results);
  writeFileSync(`${outDir}latest.json`, `${JSON.stringify(results, null, 2)}\n`);
  const md = renderMarkdown(results) + renderScenarios(scenarioResults);
  writeFileSync(`${outDir}latest.md`, md);
  writeFileSync(`${outDir}latest.svg`, renderSvg(results));
  console.log(`\n${md.slice(md.indexOf('## Target ratios'), md.indexOf('\n## ', md.indexOf('## Target ratios') + 5))}`);
  console.log(`Done in ${results.elapsedSeconds} s: bench/results/latest.md, latest.svg, latest.json`);
}

await main();
