#!/usr/bin/env node
/**
 * `node bench/profile.mjs <target> [--concurrency=64] [--duration=ms] [--workload=noop] [--top=25]`:
 * one benchmark cell under `node --cpu-prof`, on what `npm run bench` built (run it once first, or
 * pass --build). The server is pinned to CPU 1 and the load to CPU 0 like the matrix; after the window
 * the server exits and its profile is summed by self time: by kind (MiniMCP's dist/, Node's own
 * JavaScript, natives, GC, idle) and by function. Targets are the names in bench/targets.mjs.
 * The .cpuprofile is kept in bench/results/tmp/profiles/ for a closer look in DevTools.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from './lib/build.mjs';
import { probe } from './lib/probe.mjs';
import { freePort, pinning, runLoad } from './lib/processes.mjs';
import { EXPECTED } from './servers/work.mjs';
import { HEADERS, HTTP_TARGETS, STDIO_TARGETS } from './targets.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).map((a) => [a.replace(/^--/, '').split('=')[0], a.split('=')[1] ?? true]));
const name = process.argv.slice(2).find((a) => !a.startsWith('--'));
const http = HTTP_TARGETS.find((t) => t.name === name);
const target = http ?? STDIO_TARGETS.find((t) => t.name === name);
if (!target) throw new Error(`usage: node bench/profile.mjs <${[...HTTP_TARGETS, ...STDIO_TARGETS].map((t) => t.name).join('|')}>`);
if (args.build) build();

const concurrency = Number(args.concurrency ?? 64);
const workload = args.workload ?? 'noop';
const dir = `${here}results/tmp/profiles/${name}-c${concurrency}/`;
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
// SIGTERM would end the server without writing its profile: exit normally instead.
const exitOnTerm = `data:text/javascript,process.once('SIGTERM',()=>process.exit(0))`;
const pin = pinning(existsSync('/usr/bin/taskset'));
const serverCmd = pin(1, [process.execPath, '--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', exitOnTerm, `${here}${target.file}`]);
const common = { tool: workload + (target.toolSuffix ?? ''), expected: EXPECTED[workload], concurrency, warmupMs: Number(args.warmup ?? 1000), durationMs: Number(args.duration ?? 5000) };

const report = http ? await profileHttp() : await runLoad(pin, 'stdio.mjs', { ...common, cmd: serverCmd, env: target.env, init: target.init ?? false });
if (report.failed) throw new Error(report.failed);
await waitForProfile();
summarize(JSON.parse(readFileSync(dir + readdirSync(dir).find((f) => f.endsWith('.cpuprofile')), 'utf8')), report);

async function profileHttp() {
  const port = await freePort();
  const headers = { ...HEADERS, ...target.headers };
  const server = spawn(serverCmd[0], serverCmd.slice(1), { stdio: 'inherit', env: { ...process.env, ...target.env, PORT: String(port) } });
  const up = await probe({ port, path: '/mcp', headers, retryMs: 20, timeoutMs: 20_000 });
  if (!up.ok) throw new Error(`${name} did not start: ${up.error}`);
  const result = await runLoad(pin, 'http.mjs', { ...common, port, path: '/mcp', headers, progress: target.progress ?? false, pid: server.pid });
  await new Promise((resolve) => (server.once('exit', resolve), server.kill('SIGTERM')));
  return result;
}

async function waitForProfile() {
  for (let i = 0; i < 100 && !readdirSync(dir).some((f) => f.endsWith('.cpuprofile')); i++) await new Promise((r) => setTimeout(r, 100));
}

/** The kind of a profile node: whose code the sample was in. */
function kindOf({ functionName, url }) {
  if (['(garbage collector)', '(idle)', '(program)'].includes(functionName)) return functionName;
  if (url.includes('/dist/')) return 'MiniMCP (dist/)';
  if (url.startsWith('node:')) return 'Node JavaScript';
  if (url === '') return 'natives (V8 builtins, syscalls)';
  return 'other JavaScript (bench entry, dependencies)';
}

function summarize(profile, load) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const kinds = new Map();
  const fns = new Map();
  let total = 0;
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    const kind = kindOf(callFrame);
    kinds.set(kind, (kinds.get(kind) ?? 0) + us);
    if (kind === '(idle)') continue;
    total += us;
    const file = callFrame.url.replace(/^.*\/dist\//, 'dist/').replace(/^file:\/\/.*\//, '');
    const key = `${callFrame.functionName || '(anonymous)'} ${file}${file ? `:${callFrame.lineNumber + 1}` : ''}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  const pct = (us) => `${((100 * us) / total).toFixed(1)}%`;
  console.log(`# ${name}, ${workload}, c=${concurrency}: ${Math.round(load.rps ?? 0).toLocaleString('en')} req/s, server CPU ${load.cpuUsPerReq?.toFixed(1)} µs/req in the window`);
  console.log(`profile: ${dir}\n\n| kind | share of busy samples |\n|---|---:|`);
  for (const [kind, us] of [...kinds].sort((a, b) => b[1] - a[1])) if (kind !== '(idle)') console.log(`| ${kind} | ${pct(us)} |`);
  console.log(`\n| function (self time) | share |\n|---|---:|`);
  for (const [key, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top ?? 25))) console.log(`| \`${key}\` | ${pct(us)} |`);
}
