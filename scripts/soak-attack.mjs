#!/usr/bin/env node
/**
 * Soak under attack (issue 24): each memory attack of the second audit runs for a bounded time against
 * one fresh instance (scripts/security/attack-server.ts, two principals: alice and bob) while a
 * well-behaved client (alice) keeps calling a tool. Per attack it reports the server's RSS before and
 * its peak (VmHWM), the good client's requests, p50/p99 latency and errors, what the attacker (bob)
 * got back, and whether the server died. With --cluster the target is 3 members of the same server
 * sharing one private redis-server (REDIS_URL, MINIMCP_SECRET; scripts/cluster.mjs startMembers), no
 * balancer: the attacker and the good client each send their requests round robin over the members'
 * ports, so a session opened on one member is used on the others. Then it also reports the peak RSS
 * of each member (the max of the three) and of redis-server (VmHWM from /proc).
 *
 *   npm run soak -- --attack                                # every attack, 10 s each
 *   npm run soak -- --attack=subscribe,tasks --attack-seconds 20 --json
 *   npm run soak -- --attack --cluster --attack-seconds 5   # 3 members on Redis
 *
 * Options: --attack[=a,b,...] (default all: see ATTACKS; `none` is the good client alone, the baseline), --attack-seconds S (default 10),
 * --rss-cap-mib M (the servers are killed when one process, Redis included, passes M MiB so a run cannot take the machine; default 4096),
 * --cluster[=N] (N members on Redis, default 3; needs redis-server or REDIS_URL), --json (one JSON line per attack). Traffic goes to 127.0.0.1 only. Linux only (RSS from /proc).
 * Exit code 1 if the good client saw an error or the server died.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option } from './cli-option.mjs';
import { startMember, startMembers } from './cluster.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => option(args, name, fallback);
const SECONDS = Number(opt('attack-seconds', 10));
const RSS_CAP = Number(opt('rss-cap-mib', 4096)) * 1024 * 1024;
const JSON_OUT = args.includes('--json');
/** `--cluster[=N]`: N members (default 3) on one redis-server instead of one in-memory instance. */
const CLUSTER = args.some((a) => a === '--cluster' || a.startsWith('--cluster=')) ? Number(opt('cluster', 3)) : 0;
const MiB = 1024 * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const statusKb = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

const V2025 = '2025-11-25';
const V2026 = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const meta = (caps = {}) => ({ 'io.modelcontextprotocol/protocolVersion': V2026, 'io.modelcontextprotocol/clientCapabilities': caps });
const auth = (user) => ({ authorization: `Bearer token-${user}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
const modern = (user, method, name) => ({ ...auth(user), 'mcp-protocol-version': V2026, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });

/**
 * One HTTP request on its own socket. `firstChunk`: resolve once the response's first bytes came
 * (a stream), keeping the socket in `held` until the attack ends; otherwise read the whole body.
 */
function send(url, { method = 'POST', headers, body, firstChunk = false, held, agent = false }) {
  return new Promise((resolve) => {
    const req = request(typeof url === 'function' ? url() : url, { method, headers, agent }, (res) => {
      if (firstChunk) {
        held?.push(req);
        res.once('data', (chunk) => resolve({ status: res.statusCode, req, body: String(chunk) }));
        res.once('end', () => resolve({ status: res.statusCode, req, body: '' }));
        res.on('error', () => {});
        return;
      }
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ status: 'error' }));
    });
    req.on('error', (e) => resolve({ status: `error ${e.code ?? ''}`.trim() }));
    req.end(body);
  });
}

/** A 2025 session of `user`: the headers its later requests carry, or undefined when refused. */
async function session(url, user) {
  const init = await send(url, {
    headers: auth(user),
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: V2025, capabilities: {}, clientInfo: { name: user, version: '1' } } }),
  });
  const id = init.headers?.['mcp-session-id'];
  return id ? { ...auth(user), 'mcp-protocol-version': V2025, 'mcp-session-id': id } : undefined;
}

/** What an answer was: the HTTP status, and the JSON-RPC error code or result type when there is one. */
function outcome(r) {
  if (typeof r.status !== 'number' || r.body === undefined) return String(r.status);
  const last = r.body.trim().split('\n').filter((l) => l.startsWith('data: ') || l.startsWith('{')).at(-1)?.replace(/^data: /, '');
  try {
    const reply = JSON.parse(last ?? '');
    const what = reply.error ? `error ${reply.error.code}` : reply.method ?? reply.result?.resultType ?? 'result';
    return `${r.status} ${what}`;
  } catch {
    return String(r.status);
  }
}

let nextId = 1;
const rpc = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });

/** The attacks: each loops until `until` with bounded concurrency, counting what bob gets back. */
const ATTACKS = {
  /** No attack: the good client alone, the throughput every attack is compared with. */
  async none({ until }) {
    await sleep(Math.max(0, until - Date.now()));
  },
  /** Finding 1: resources/subscribe with URIs of 900 KiB (one 2025 session). */
  async subscribe({ url, until, count }) {
    const headers = await session(url, 'bob');
    // The 900 KiB tail is made once: the attacker's own work is not what is measured.
    const tail = `/${'x'.repeat(900 * 1024)}"}}`;
    let i = 0;
    await loops(8, until, async () => {
      const body = `${rpc('resources/subscribe', { uri: `test://big/${i++}` }).slice(0, -3)}${tail}`;
      count(outcome(await send(url, { headers, body })));
    });
  },
  /** Finding 2: finished tasks with 1 MiB results and the longest TTL. */
  async tasks({ url, until, count }) {
    const body = () => rpc('tools/call', { name: 'big', arguments: { kib: 1024 }, task: { ttl: 86_400_000 }, _meta: meta({ extensions: { [TASKS]: {} } }) });
    await loops(8, until, async () => count(outcome(await send(url, { headers: modern('bob', 'tools/call', 'big'), body: body() }))));
  },
  /** Finding 5: tasks with a 1 ms TTL whose handlers run for 5 s. */
  async 'task-ttl'({ url, until, count }) {
    const body = () => rpc('tools/call', { name: 'big', arguments: { kib: 1, ms: 5000 }, task: { ttl: 1 }, _meta: meta({ extensions: { [TASKS]: {} } }) });
    await loops(8, until, async () => count(outcome(await send(url, { headers: modern('bob', 'tools/call', 'big'), body: body() }))));
  },
  /** Finding 3: 2025 GET streams held open, one session each (at most 2,000 sockets). */
  async 'get-streams'({ url, until, count, held }) {
    let opened = 0;
    await loops(8, until, async () => {
      if (opened >= 2000) return sleep(100);
      opened++;
      const headers = await session(url, 'bob');
      if (!headers) return count('initialize refused');
      count(outcome(await send(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' }, firstChunk: true, held })));
    });
  },
  /** Finding 4: resumable streams of 512 KiB events, dropped by the client after the first bytes. */
  async replay({ url, until, count }) {
    const headers = await session(url, 'bob');
    await loops(16, until, async () => {
      const r = await send(url, { headers, body: rpc('tools/call', { name: 'chatty', arguments: { kib: 512 }, _meta: { progressToken: 'p' } }), firstChunk: true });
      count(String(r.status));
      r.req?.destroy();
    });
  },
  /** Finding 7: new 2025 sessions, each with a log level kept. */
  async sessions({ url, until, count }) {
    await loops(8, until, async () => {
      const headers = await session(url, 'bob');
      if (!headers) return count('initialize refused');
      count(outcome(await send(url, { headers, body: rpc('logging/setLevel', { level: 'debug' }) })));
    });
  },
  /** Issue 12's listen attack: listen streams with 3.9 MiB filters, held open. */
  async listen({ url, until, count, held }) {
    const uris = Array.from({ length: 232_000 }, (_, i) => `test://r/${i}`);
    const body = rpc('subscriptions/listen', { notifications: { resourceSubscriptions: uris }, _meta: meta() });
    await loops(4, until, async () => count(outcome(await send(url, { headers: modern('bob', 'subscriptions/listen'), body, firstChunk: true, held }))));
  },
  /** Finding 11: 100 CPU-bound worker calls at once, again and again. */
  async workers({ url, until, count }) {
    await loops(100, until, async () => count(outcome(await send(url, { headers: modern('bob', 'tools/call', 'cpu'), body: rpc('tools/call', { name: 'cpu', arguments: { ms: 200 }, _meta: meta() }) }))));
  },
};

/** `n` concurrent loops of `step` until the deadline. */
async function loops(n, until, step) {
  await Promise.all(Array.from({ length: n }, async () => {
    while (Date.now() < until) await step();
  }));
}

/** Alice calls `echo` (2026, stateless) in two loops until `until`: latencies and errors. */
async function goodClient(url, until) {
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const latencies = [];
  let errors = 0;
  let firstError;
  await loops(2, until, async () => {
    const t0 = performance.now();
    const r = await send(url, { headers: modern('alice', 'tools/call', 'echo'), body: rpc('tools/call', { name: 'echo', arguments: {}, _meta: meta() }), agent });
    latencies.push(performance.now() - t0);
    if (outcome(r) !== '200 complete') {
      errors++;
      firstError ??= `${outcome(r)} ${String(r.body).slice(0, 200)}`;
    }
  });
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(1));
  return { requests: latencies.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1), errors, firstError };
}

const ATTACK_SERVER = join(root, 'scripts/security/attack-server.ts');

/**
 * `--attacker NAME --urls A,B --until T`: this process is the attacker only. It prints what bob got
 * as one JSON line when the attack ends and exits (its held streams close with it). The attacker runs
 * in its own process so that building and sending its big requests does not take the good client's
 * event loop: in one process, the profile showed the client 78% busy with bob's 900 KiB bodies while
 * the server was 46% idle (the soak measured itself, not the server).
 */
async function attackerOnly(name) {
  const urls = opt('urls').split(',');
  const until = Number(opt('until'));
  const outcomes = {};
  const count = (key) => (outcomes[key] = (outcomes[key] ?? 0) + 1);
  const held = [];
  await ATTACKS[name]({ url: roundRobin(urls), until, count, held }).catch((e) => count(`attacker failed: ${e.message}`));
  process.stdout.write(`${JSON.stringify(outcomes)}\n`, () => process.exit(0));
}

/** Runs the attack in a child process (attackerOnly) until `until`; resolves with what bob got. */
function attackInChild(name, urls, until) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--attacker', name, '--urls', urls.join(','), '--until', String(until)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((resolve) => child.once('exit', (code) => {
    try {
      resolve(JSON.parse(out));
    } catch {
      resolve({ [`attacker exited ${code}`]: 1 });
    }
  }));
}

/** One instance (in-memory state), or CLUSTER members of the attack server on one private redis-server. */
async function startTarget() {
  if (!CLUSTER) {
    const member = await startMember(ATTACK_SERVER, { REDIS_URL: '' });
    return { members: [member], redis: undefined, stop: member.stop };
  }
  return startMembers({ instances: CLUSTER, script: ATTACK_SERVER });
}

/** Round robin over the members' URLs: each request goes to the next one (no balancer in between). */
const roundRobin = (urls) => {
  let i = 0;
  return () => urls[i++ % urls.length];
};

const mib = (bytes) => Number((bytes / MiB).toFixed(1));
/** `field` of each pid in MiB (undefined for a process that is gone). */
const rssOf = (pids, field) => pids.map((pid) => {
  try {
    return mib(statusKb(pid, field));
  } catch {
    return undefined;
  }
});
const maxOf = (values) => Math.max(0, ...values.filter((v) => v !== undefined));

/** Kills every process of the target past the RSS cap, so a run cannot take the machine. */
function watchRss(pids, target) {
  const state = { killedAtCap: false };
  const timer = setInterval(() => {
    if (rssOf(pids, 'VmRSS').some((m) => m !== undefined && m * MiB > RSS_CAP)) {
      state.killedAtCap = true;
      for (const m of target.members) m.child.kill('SIGKILL');
    }
  }, 200);
  return { state, stop: () => clearInterval(timer) };
}

async function run(name) {
  const target = await startTarget();
  const pids = target.members.map((m) => m.pid);
  const redisPid = target.redis?.pid;
  await sleep(500);
  const before = rssOf(pids, 'VmRSS');
  const redisBefore = redisPid ? rssOf([redisPid], 'VmRSS')[0] : undefined;
  let died = false;
  for (const m of target.members) m.child.once('exit', () => (died = true));
  const watchdog = watchRss(redisPid ? [...pids, redisPid] : pids, target);
  const until = Date.now() + SECONDS * 1000;
  const urls = target.members.map((m) => m.url);
  const [outcomes, good] = await Promise.all([attackInChild(name, urls, until), goodClient(roundRobin(urls), until)]);
  // VmHWM: each process's peak RSS over its life (a fresh target per attack, so over this attack).
  const peaks = rssOf(pids, 'VmHWM');
  const redisPeak = redisPid ? rssOf([redisPid], 'VmHWM')[0] : undefined;
  const serverDied = died;
  watchdog.stop();
  await target.stop();
  return report({
    attack: name, seconds: SECONDS, instances: pids.length, serverRssBeforeMiB: maxOf(before), serverRssPeakMiB: maxOf(peaks), serverRssPeaksMiB: peaks,
    redisRssBeforeMiB: redisBefore, redisRssPeakMiB: redisPeak, serverDied, killedAtRssCap: watchdog.state.killedAtCap, good, attacker: outcomes,
  });
}

function report(summary) {
  const { attack: name, good } = summary;
  if (JSON_OUT) console.log(JSON.stringify(summary));
  else {
    const where = summary.instances > 1 ? `${summary.instances} servers (max)` : 'server';
    const redis = summary.redisRssPeakMiB === undefined ? '' : `; redis RSS ${summary.redisRssBeforeMiB} -> peak ${summary.redisRssPeakMiB} MiB`;
    const fate = summary.serverDied ? (summary.killedAtRssCap ? ' (KILLED at the RSS cap)' : ' (DIED)') : '';
    console.log(`[attack] ${name}: ${where} RSS ${summary.serverRssBeforeMiB} -> peak ${summary.serverRssPeakMiB} MiB${fate}${redis}`);
    console.log(`[attack] ${name}: good client ${good.requests} calls, p50 ${good.p50Ms} ms, p99 ${good.p99Ms} ms, max ${good.maxMs} ms, errors ${good.errors}${good.firstError ? ` (first: ${good.firstError})` : ''}`);
    console.log(`[attack] ${name}: attacker got ${JSON.stringify(summary.attacker)}`);
  }
  return summary;
}

const attacker = opt('attacker');
if (attacker !== undefined) await attackerOnly(attacker);
const chosen = (opt('attack', 'all') === 'all' ? Object.keys(ATTACKS) : opt('attack').split(',')).filter(Boolean);
for (const name of chosen) if (!ATTACKS[name]) throw new Error(`unknown attack ${name}; known: ${Object.keys(ATTACKS).join(', ')}`);
const results = [];
for (const name of chosen) results.push(await run(name));
process.exit(results.some((r) => r.good.errors > 0 || r.serverDied) ? 1 : 0);
