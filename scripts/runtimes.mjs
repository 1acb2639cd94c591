#!/usr/bin/env node
// `npm run test:runtimes`: the built package on every runtime we name. See runtimes/README.md.
// Plain Node ESM with built-ins (and esbuild, a devDependency): it runs on the project's Node 20.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from './free-port.mjs';
import { DENO_RUN as deno, RUNTIME_BINS as BIN } from './runtime-bins.mjs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, '.cache/runtimes');
const SERVERS = join(ROOT, 'test/runtimes/servers');
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const READY_MS = 20_000;

const { values: opt } = parseArgs({ options: {
  only: { type: 'string' }, // comma-separated runtime names
  'no-conformance': { type: 'boolean', default: false },
  'no-unit': { type: 'boolean', default: false },
  verbose: { type: 'boolean', default: false },
} });
const only = opt.only ? new Set(opt.only.split(',')) : undefined;
const log = (msg) => console.error(`[runtimes] ${msg}`);
const secs = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

// Each runtime: where its binary is, how it serves the apps over HTTP, and how it runs a stdio script.
const RUNTIMES = [
  { name: `node${process.versions.node.split('.')[0]}`, bin: process.execPath, http: (f) => [join(f, 'node.js')], stdio: (f) => [f], unit: false },
  { name: 'node22', bin: BIN.node22, http: (f) => [join(f, 'node.js')], stdio: (f) => [f], unit: true },
  { name: 'node24', bin: BIN.node24, http: (f) => [join(f, 'node.js')], stdio: (f) => [f], unit: true },
  { name: 'bun', bin: BIN.bun, http: (f) => ['run', join(f, 'bun.js')], stdio: (f) => ['run', f], conformance: true },
  { name: 'deno', bin: BIN.deno, http: (f) => [...deno, join(f, 'deno.js')], stdio: (f) => [...deno, f], conformance: true },
  { name: 'workerd', bin: BIN.workerd, http: (f, port) => ['serve', join(f, 'workerd.capnp'), '--socket-addr', `http=127.0.0.1:${port}`], conformance: true },
].filter((r) => !only || only.has(r.name));

// Workers' compatibility settings: the fewest the package needs. enable_request_signal lets a client's
// disconnect abort a request that is not streaming (a streamed one learns it from the stream's cancel).
const WORKERD_FLAGS = ['enable_request_signal'];

function ensureInstalled() {
  if (process.platform !== 'linux' || process.arch !== 'x64') return log(`runtime binaries exist for linux-x64 only; this is ${process.platform}-${process.arch}`);
  if (RUNTIMES.every((r) => existsSync(r.bin))) return;
  log('installing runtimes/node_modules (npm ci)');
  spawnSync('npm', ['ci', '--prefix', join(ROOT, 'runtimes'), '--no-audit', '--no-fund'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
}

/**
 * The servers, bundled one file per runtime from test/runtimes/servers/. Every import of the
 * package (by name, or an example's relative import of src/<entry>) goes to the built dist/ file of
 * that export, so what runs is what `npm pack` ships; any other import of src/ is an error.
 */
async function bundle() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const bySource = new Map(); // src/x.ts -> dist/x.js, for every export
  const byName = new Map(); // minimcp/http -> dist/...
  for (const [key, target] of Object.entries(pkg.exports)) {
    const file = target.default ?? target.import;
    const dist = join(ROOT, file);
    bySource.set(join(ROOT, file.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')), dist);
    byName.set(key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`, dist);
  }
  const toDist = {
    name: 'package-from-dist',
    setup(b) {
      b.onResolve({ filter: /^minimcp(\/|$)/ }, (a) => ({ path: byName.get(a.path) ?? `unknown export ${a.path}` }));
      b.onResolve({ filter: /^\.\.?\/.*\/src\// }, (a) => {
        const source = resolve(a.resolveDir, a.path).replace(/\.js$/, '.ts');
        const dist = bySource.get(source);
        return dist ? { path: dist } : { errors: [{ text: `${relative(ROOT, source)} is not a public entry point of the package` }] };
      });
    },
  };
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  await build({
    entryPoints: ['node', 'bun', 'deno', 'worker', 'stdio'].map((n) => join(SERVERS, `${n}.ts`)),
    outdir: OUT, bundle: true, format: 'esm', platform: 'neutral', mainFields: ['module', 'main'],
    target: 'es2022', external: ['node:*'], plugins: [toDist], logLevel: 'warning',
    logOverride: { 'ignored-bare-import': 'silent' }, // dist's chunk-order imports; the package is side-effect free
  });
  writeFileSync(join(OUT, 'workerd.capnp'), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = [${WORKERD_FLAGS.map((f) => `"${f}"`).join(', ')}],
);
`);
}


/** Starts a runtime's HTTP server; resolves with its base URL and a stop function. */
async function startServer(rt) {
  const port = await freePort();
  const out = [];
  const child = spawn(rt.bin, rt.http(OUT, port), { cwd: OUT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const stop = async () => {
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ }
    if (child.exitCode === null && child.signalCode === null) {
      await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 3000).unref())]);
    }
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
  };
  let printed;
  child.stdout.on('data', (b) => { printed ??= /http:\/\/127\.0\.0\.1:\d+/.exec(String(b))?.[0]; out.push(String(b)); });
  child.stderr.on('data', (b) => { out.push(String(b)); if (opt.verbose) process.stderr.write(`[${rt.name}] ${b}`); });
  const t0 = Date.now();
  while (Date.now() - t0 < READY_MS) {
    const base = printed ?? (rt.name === 'workerd' ? `http://127.0.0.1:${port}` : undefined);
    if (base && (await fetch(`${base}/mcp`, { signal: AbortSignal.timeout(1000) }).then(() => true, () => false))) {
      log(`${rt.name} serving at ${base} (${secs(t0)})`);
      return { base, stop, output: out };
    }
    if (child.exitCode !== null || child.signalCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`${rt.name} did not serve within ${READY_MS / 1000} s:\n${out.join('').slice(-2000)}`);
}

/** Runs a command, echoing its output; resolves with its exit code and output. */
function run(cmd, args, env = {}) {
  return new Promise((res) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const s of [child.stdout, child.stderr]) s.on('data', (b) => { output += b; process.stdout.write(b); });
    child.on('close', (code, signal) => res({ code: code ?? signal, output }));
  });
}

// Vitest's summary: "Tests  12 passed | 1 failed (13)" (colours stripped).
function vitestCounts(output) {
  const line = output.replace(new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m', 'g'), '').split('\n').find((l) => /^\s*Tests\s/.test(l)) ?? '';
  const n = (word) => Number(new RegExp(`(\\d+) ${word}`).exec(line)?.[1] ?? 0);
  return { passed: n('passed'), failed: n('failed'), skipped: n('skipped') };
}

async function main() {
  const t0 = Date.now();
  const rows = [];
  let failed = 0;
  let passed = 0;
  ensureInstalled();
  log('building dist/ and bundling the runtime servers');
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (b.status !== 0) throw new Error('npm run build failed');
  await bundle();
  for (const rt of RUNTIMES) {
    if (!existsSync(rt.bin)) {
      console.log(`SKIP ${rt.name}: its binary is not installed (${relative(ROOT, rt.bin)}; the registry package is missing for this platform)`);
      rows.push({ name: rt.name, note: 'skipped: binary not installed' });
      continue;
    }
    const t1 = Date.now();
    const row = { name: rt.name, version: String(spawnSync(rt.bin, ['--version']).stdout).split(/[\n(]/)[0].trim() };
    rows.push(row);
    let server;
    try {
      server = await startServer(rt);
      const env = {
        RUNTIME_NAME: rt.name,
        RUNTIME_URL: server.base,
        RUNTIME_STDIO: rt.stdio ? JSON.stringify([rt.bin, ...rt.stdio(join(OUT, 'stdio.js'))]) : '',
      };
      const r = await run(process.execPath, [VITEST, 'run', '--config', 'test/runtimes/vitest.config.ts'], env);
      row.clients = vitestCounts(r.output);
      if (r.code !== 0 && row.clients.failed === 0) row.clients.failed = 1; // vitest itself failed
      passed += row.clients.passed; failed += row.clients.failed;
      if (rt.conformance && !opt['no-conformance']) {
        // The runtime servers bundle fixture.ts, which serves no skills (they are read from disk by server.ts, Node only).
        const c = await run(process.execPath, [join(ROOT, 'scripts/conformance.mjs'), '--url', `${server.base}/mcp`, '--no-skills']);
        const m = /conformance: (\d+) passed, (\d+) failed/.exec(c.output);
        row.conformance = m ? { passed: Number(m[1]), failed: Number(m[2]) } : { passed: 0, failed: 1 };
        passed += row.conformance.passed; failed += row.conformance.failed;
      }
    } catch (e) {
      console.error(`runtimes: ${rt.name}: ${e.message}`);
      row.error = e.message.split('\n')[0];
      failed++;
    } finally {
      await server?.stop();
    }
    if (rt.unit && !opt['no-unit']) {
      // One retry: a few unit tests time intervals of 20-50 ms, which a loaded machine can stretch.
      const u = await run(rt.bin, [VITEST, 'run', 'test/unit', '--retry=1']);
      row.unit = vitestCounts(u.output);
      if (u.code !== 0 && row.unit.failed === 0) row.unit.failed = 1;
      passed += row.unit.passed; failed += row.unit.failed;
    }
    row.time = secs(t1);
  }
  console.log('\n== runtimes ==');
  const cell = (c) => (c ? `${c.passed} passed${c.failed ? `, ${c.failed} FAILED` : ''}` : '-');
  for (const r of rows) {
    if (r.note) { console.log(`  ${r.name.padEnd(8)} ${r.note}`); continue; }
    console.log(`  ${r.name.padEnd(8)} ${(r.version ?? '').padEnd(18)} clients: ${cell(r.clients).padEnd(22)} conformance: ${cell(r.conformance).padEnd(18)} unit: ${cell(r.unit).padEnd(18)} ${r.error ? `ERROR ${r.error}` : ''}(${r.time})`);
  }
  log(`total ${secs(t0)}`);
  console.log(`runtimes: ${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main().catch((e) => { console.error(`runtimes: ${e.stack ?? e}`); process.exitCode = 1; });
