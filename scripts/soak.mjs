#!/usr/bin/env node
/**
 * Soak test: N requests against the math example server over HTTP and over stdio, each server in its
 * own process, its RSS sampled from /proc/<pid>/status every second. Every answer is checked (id,
 * shape, expected result), so a leak, a crash, a hang or a wrong answer all show up.
 *
 *   node scripts/soak.mjs                              # 1,000,000 requests per transport
 *   node scripts/soak.mjs --requests 100000            # bounded run
 *   node scripts/soak.mjs --transport http --concurrency 32 --json
 *   node scripts/soak.mjs --attack [--cluster]         # the soak under attack (scripts/soak-attack.mjs)
 *
 * Options: --requests N (per transport, default 1,000,000), --transport http|stdio|both (default both),
 * --concurrency C (HTTP sockets / stdio requests in flight, default 32 / 256), --max-seconds S (stop a
 * transport's load after S seconds, default 3600), --json (print one JSON summary line per transport).
 * Traffic goes to 127.0.0.1 only. Linux only (RSS from /proc). Exit code 1 if any answer was wrong.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option } from './cli-option.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => option(args, name, fallback);
// `--attack`: the soak under attack (issue 24), its own script; it exits when done.
if (args.some((a) => a === '--attack' || a.startsWith('--attack='))) await import('./soak-attack.mjs');
if (args.includes('--help') || args.includes('-h')) {
  console.log('usage: node scripts/soak.mjs [--requests N] [--transport http|stdio|both] [--concurrency C] [--max-seconds S] [--json]');
  console.log('       node scripts/soak.mjs --attack[=name,...] [--attack-seconds S] [--cluster[=N]] [--rss-cap-mib M] [--json]');
  process.exit(0);
}
const REQUESTS = Number(opt('requests', 1_000_000));
const TRANSPORT = opt('transport', 'both');
const MAX_SECONDS = Number(opt('max-seconds', 3600));
const JSON_OUT = args.includes('--json');
if (!Number.isInteger(REQUESTS) || REQUESTS < 1) throw new Error(`--requests must be a positive integer`);
if (!['http', 'stdio', 'both'].includes(TRANSPORT)) throw new Error(`--transport must be http, stdio or both`);

const MiB = 1024 * 1024;
const rssOf = (pid) => Number(/VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => !JSON_OUT && console.log(...a);

// ---- the request mix ----------------------------------------------------------------------------

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/**
 * The i-th request of the mix: tools (one in four a 2026 request), lists, reads, prompts, completions,
 * tool errors and a few protocol errors. Returns the message (or raw text), its HTTP headers and a
 * check of the reply.
 */
function nth(i) {
  const id = i;
  const a = i % 1000;
  const b = (i % 7) + 1;
  const modern = i % 4 === 3;
  const params = (p) => (modern ? { ...p, _meta: META } : p);
  const h2026 = (method, name) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });
  const kind = i % 20;
  if (kind < 8) {
    const tool = ['add', 'subtract', 'multiply', 'divide'][i % 4];
    const expected = { add: a + b, subtract: a - b, multiply: a * b, divide: a / b }[tool];
    return {
      message: { jsonrpc: '2.0', id, method: 'tools/call', params: params({ name: tool, arguments: { a, b } }) },
      headers: modern ? h2026('tools/call', tool) : {},
      check: (r) => r.result?.structuredContent?.result === expected,
    };
  }
  if (kind === 8) return { message: { jsonrpc: '2.0', id, method: 'tools/call', params: params({ name: 'divide', arguments: { a, b: 0 } }) }, headers: modern ? h2026('tools/call', 'divide') : {}, check: (r) => r.result?.isError === true };
  if (kind === 9) return { message: { jsonrpc: '2.0', id, method: 'tools/list', params: params({}) }, headers: modern ? h2026('tools/list') : {}, check: (r) => r.result?.tools?.length === 4 };
  if (kind === 10) {
    const uri = `math://tables/${(i % 12) + 1}`;
    return { message: { jsonrpc: '2.0', id, method: 'resources/read', params: params({ uri }) }, headers: modern ? h2026('resources/read', uri) : {}, check: (r) => typeof r.result?.contents?.[0]?.text === 'string' };
  }
  if (kind === 11) return { message: { jsonrpc: '2.0', id, method: 'resources/read', params: params({ uri: 'math://constants/pi' }) }, headers: modern ? h2026('resources/read', 'math://constants/pi') : {}, check: (r) => r.result?.contents?.[0]?.text === String(Math.PI) };
  if (kind === 12) return { message: { jsonrpc: '2.0', id, method: 'prompts/get', params: params({ name: 'solve_step_by_step', arguments: { problem: `${a}+${b}` } }) }, headers: modern ? h2026('prompts/get', 'solve_step_by_step') : {}, check: (r) => r.result?.messages?.length === 1 };
  if (kind === 13) return { message: { jsonrpc: '2.0', id, method: 'completion/complete', params: params({ ref: { type: 'ref/resource', uri: 'math://tables/{n}' }, argument: { name: 'n', value: '1' } }) }, headers: modern ? h2026('completion/complete') : {}, check: (r) => Array.isArray(r.result?.completion?.values) };
  if (kind === 14) return { message: { jsonrpc: '2.0', id, method: 'tools/call', params: params({ name: 'nope', arguments: {} }) }, headers: modern ? h2026('tools/call', 'nope') : {}, check: (r) => r.error?.code === -32602 };
  if (kind === 15) return { message: { jsonrpc: '2.0', id, method: 'resources/read', params: params({ uri: `math://tables/${5000 + a}` }) }, headers: modern ? h2026('resources/read', `math://tables/${5000 + a}`) : {}, check: (r) => r.error?.code === -32602 && typeof r.error?.data?.uri === 'string' };
  if (kind === 16) return { text: `{"jsonrpc":"2.0","id":${id},"method":`, headers: {}, check: (r) => r.error?.code === -32700 && r.id === null, anyId: true };
  if (kind === 17) return { message: { jsonrpc: '2.0', id, method: 'no/such/method', params: {} }, headers: {}, check: (r) => r.error?.code === -32601 };
  if (kind === 18) return { message: { jsonrpc: '2.0', id, method: 'tools/call', params: params({ name: 'add', arguments: { a: 'x', b } }) }, headers: modern ? h2026('tools/call', 'add') : {}, check: (r) => r.result?.isError === true };
  return { message: { jsonrpc: '2.0', id, method: 'ping' }, headers: {}, check: (r) => r.result !== undefined };
}

// ---- RSS sampling -------------------------------------------------------------------------------

function sampler(pid) {
  const samples = [];
  const take = () => {
    try {
      samples.push({ t: performance.now(), rss: rssOf(pid) });
    } catch {
      // the process is gone
    }
  };
  take();
  const timer = setInterval(take, 1000);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
    },
  };
}

function summarise(name, { done, wrong, firstWrong, elapsed, samples, startRss, endRss, crashed }) {
  const peak = Math.max(...samples.map((s) => s.rss));
  // Growth after warm-up: RSS at 10% of the run versus at its end (idle), so JIT and pool warm-up are not counted.
  const loadSamples = samples.filter((s) => s.t >= samples[0].t);
  const warm = loadSamples[Math.max(1, Math.floor(loadSamples.length * 0.1))]?.rss ?? startRss;
  const summary = {
    transport: name,
    requests: done,
    seconds: Number((elapsed / 1000).toFixed(1)),
    perSecond: Math.round(done / (elapsed / 1000)),
    wrongAnswers: wrong,
    crashed,
    rssStartMiB: Number((startRss / MiB).toFixed(1)),
    rssPeakMiB: Number((peak / MiB).toFixed(1)),
    rssEndMiB: Number((endRss / MiB).toFixed(1)),
    growthMiB: Number(((endRss - startRss) / MiB).toFixed(1)),
    growthAfterWarmupMiB: Number(((endRss - warm) / MiB).toFixed(1)),
  };
  if (JSON_OUT) console.log(JSON.stringify(summary));
  else {
    console.log(`[soak] ${name}: ${done} requests in ${summary.seconds} s (${summary.perSecond}/s), wrong answers ${wrong}${crashed ? ', SERVER CRASHED' : ''}`);
    console.log(`[soak] ${name}: RSS start ${summary.rssStartMiB} MiB, peak ${summary.rssPeakMiB} MiB, end ${summary.rssEndMiB} MiB, ` +
      `growth ${summary.growthMiB} MiB (after warm-up ${summary.growthAfterWarmupMiB} MiB)`);
    if (firstWrong) console.log(`[soak] ${name}: first wrong answer: ${firstWrong}`);
    const every = Math.max(1, Math.floor(samples.length / 12));
    console.log(`[soak] ${name}: RSS MiB over time: ${samples.filter((_, i) => i % every === 0).map((s) => (s.rss / MiB).toFixed(0)).join(' ')}`);
  }
  return summary;
}

function startServer(script, env = {}) {
  return spawn(process.execPath, ['--import', 'tsx', join(root, script)], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

// ---- HTTP ---------------------------------------------------------------------------------------

/**
 * Sends REQUESTS requests through `ask` from `workers` concurrent loops (both transports use it),
 * counting wrong answers and logging progress every 10 s.
 */
async function drive(label, workers, ask, sampling, crashed) {
  let next = 0;
  let done = 0;
  let wrong = 0;
  let firstWrong;
  const started = performance.now();
  const deadline = started + MAX_SECONDS * 1000;
  let lastLog = started;
  const worker = async () => {
    while (next < REQUESTS && performance.now() < deadline && !crashed()) {
      const i = next++;
      const r = nth(i);
      const reply = await ask(i, r);
      done++;
      let ok = false;
      try {
        ok = (r.anyId || reply?.id === i) && r.check(reply);
      } catch {
        // a reply of the wrong shape: counted as wrong below
      }
      if (!ok) {
        wrong++;
        firstWrong ??= `#${i} ${JSON.stringify(r.message ?? r.text).slice(0, 200)} -> ${JSON.stringify(reply).slice(0, 300)}`;
      }
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        log(`[soak] ${label}: ${done} / ${REQUESTS}, RSS ${(sampling.samples.at(-1).rss / MiB).toFixed(1)} MiB`);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { done, wrong, firstWrong, elapsed: performance.now() - started };
}

async function soakHttp() {
  const concurrency = Number(opt('concurrency', 32));
  const child = startServer('examples/math/http.ts', { PORT: '0' });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const post = (body, headers) =>
    new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  // A 2025 session for the 2025 share of the mix.
  const init = await post(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'soak', version: '1' } } }), {});
  const session = init.headers['mcp-session-id'];
  for (let i = 0; i < 2_000; i++) await post(JSON.stringify(nth(i).message ?? {}), { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }).catch(() => {}); // warm-up
  await sleep(1000);

  const sampling = sampler(child.pid);
  const startRss = sampling.samples[0].rss;
  let crashed = false;
  let stopping = false;
  child.once('exit', () => (crashed = !stopping));
  const ask = async (i, r) => {
    const modern = r.headers['mcp-protocol-version'] === '2026-07-28';
    const headers = modern ? r.headers : { ...r.headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    try {
      return JSON.parse((await post(r.text ?? JSON.stringify(r.message), headers)).body);
    } catch (error) {
      return String(error);
    }
  };
  const { done, wrong, firstWrong, elapsed } = await drive('http', concurrency, ask, sampling, () => crashed);
  agent.destroy();
  await sleep(3000); // idle: let the server settle before the end sample
  sampling.stop();
  const endRss = sampling.samples.at(-1).rss;
  stopping = true;
  child.kill('SIGTERM');
  return summarise('http', { done, wrong, firstWrong, elapsed, samples: sampling.samples, startRss, endRss, crashed });
}

// ---- stdio --------------------------------------------------------------------------------------

async function soakStdio() {
  const window = Number(opt('concurrency', 256));
  const child = startServer('examples/math/stdio.ts');
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const waiting = new Map();
  let nullReplies = [];
  let buffered = '';
  child.stdout.on('data', (d) => {
    buffered += d;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let reply;
      try {
        reply = JSON.parse(line);
      } catch {
        reply = { unparsable: line.slice(0, 200) };
      }
      const w = reply.id === null ? nullReplies.shift() : waiting.get(reply.id);
      if (w) {
        waiting.delete(w.i);
        w.resolve(reply);
      }
    }
  });
  const ask = (i, r) =>
    new Promise((resolve) => {
      const entry = { i, resolve };
      if (r.anyId) nullReplies.push(entry);
      else waiting.set(i, entry);
      child.stdin.write(`${r.text ?? JSON.stringify(r.message)}\n`);
    });
  await ask(-1, { message: { jsonrpc: '2.0', id: -1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'soak', version: '1' } } } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  for (let i = 0; i < 2_000; i += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => ask(-(i + j) - 10, { message: { jsonrpc: '2.0', id: -(i + j) - 10, method: 'ping' } })));
  await sleep(1000);

  const sampling = sampler(child.pid);
  const startRss = sampling.samples[0].rss;
  let crashed = false;
  let stopping = false;
  child.once('exit', () => {
    crashed = !stopping;
    for (const w of [...waiting.values(), ...nullReplies]) w.resolve({ crashed: true });
  });
  const { done, wrong, firstWrong, elapsed } = await drive('stdio', window, ask, sampling, () => crashed);
  await sleep(3000);
  sampling.stop();
  const endRss = sampling.samples.at(-1).rss;
  stopping = true;
  child.stdin.end();
  await Promise.race([new Promise((r) => child.once('exit', r)), sleep(10_000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
  return summarise('stdio', { done, wrong, firstWrong, elapsed, samples: sampling.samples, startRss, endRss, crashed });
}

const results = [];
log(`[soak] ${REQUESTS} requests per transport (${TRANSPORT}), math example server, RSS sampled every second`);
if (TRANSPORT !== 'stdio') results.push(await soakHttp());
if (TRANSPORT !== 'http') results.push(await soakStdio());
process.exit(results.some((r) => r.wrongAnswers > 0 || r.crashed) ? 1 : 0);
