/**
 * A cluster on one machine: a private redis-server on a free port (or REDIS_URL), N member processes
 * sharing it, and nginx in front with round-robin, no affinity and no retry on another member.
 *
 *   npm run start:cluster            # 3 members of the math example; prints the URL; Ctrl-C stops all
 *   npm run start:cluster -- 5       # 5 members
 *
 * Importable too (the cluster tests and the benchmark start clusters with these functions); the
 * types are in cluster.d.mts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.mjs';

export { freePort };

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = join(ROOT, 'node_modules/tsx/dist/loader.mjs');
/** The math example over HTTP: `npm start`, a cluster member when REDIS_URL is set. */
export const MATH_MEMBER = join(ROOT, 'examples/math/http.ts');

const locate = (name) => spawnSync('sh', ['-c', `command -v ${name} || { test -x /usr/sbin/${name} && echo /usr/sbin/${name}; }`]).stdout.toString().trim();

/** The binaries a cluster needs that this machine lacks (redis-server is not needed with REDIS_URL). */
export function missingBinaries() {
  return [process.env.REDIS_URL ? undefined : 'redis-server', 'nginx'].filter((name) => name !== undefined && locate(name) === '');
}

/** Waits until `child` prints a line matching `pattern`; resolves with the match. */
function waitFor(child, pattern, what, ms = 60_000) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start in ${ms} ms: ${seen}`)), ms);
    const onData = (chunk) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      resolve(match);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`${what} exited (${code ?? signal}): ${seen}`)));
  });
}

/** Ends a child with `signal` and waits for its exit (at once if it is gone). */
async function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** A private redis-server on a free port (no persistence), or the one REDIS_URL names (then stop and restart do nothing). */
export async function startRedis() {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
  const port = await freePort();
  const launch = () => spawn(locate('redis-server'), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'pipe' });
  let child = launch();
  await waitFor(child, /Ready to accept connections/, 'redis-server');
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () => stopChild(child),
    /** Stops it and starts a fresh one on the same port (all data gone, as after a crash without persistence). */
    async restart() {
      await stopChild(child);
      child = launch();
      await waitFor(child, /Ready to accept connections/, 'redis-server');
    },
  };
}

/**
 * One member: `script` (TypeScript, run with tsx) on a free port, PORT=0; it must print its URL
 * (`http://127.0.0.1:<port>/mcp`) when it listens. `env` adds REDIS_URL, MINIMCP_SECRET and so on.
 */
export async function startMember(script, env) {
  const child = spawn(process.execPath, ['--import', TSX, script], { env: { ...process.env, PORT: '0', ...env }, stdio: 'pipe', cwd: ROOT });
  const [url] = await waitFor(child, /http:\/\/127\.0\.0\.1:\d+\/mcp/, `cluster member ${script}`);
  child.stdout.resume(); // keep reading, so a chatty member never blocks on a full pipe
  child.stderr.resume();
  return { url, pid: child.pid, child, stop: () => stopChild(child), kill: () => stopChild(child, 'SIGKILL') };
}

function nginxConfig(dir, port, upstreams) {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `${k}_temp_path ${dir}/${k};`).join('\n  ');
  // proxy_next_upstream off: a request is never retried on another member (a retried tools/call could
  // run twice). A member that refuses the connection gets 502 at once, and nginx then skips it for
  // fail_timeout (max_fails=1), so the next requests go to the others.
  return `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  ${temp}
  upstream members { ${upstreams.map((u) => `server ${u} max_fails=1 fail_timeout=10s;`).join(' ')} }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://members;
      proxy_next_upstream off;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 300s;
    }
  }
}
`;
}

/** nginx on a free port, round-robin over `upstreams` (host:port), no affinity, no retry on another member. */
export async function startNginx(upstreams) {
  const dir = mkdtempSync(join(tmpdir(), 'minimcp-nginx-'));
  const port = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig(dir, port, upstreams));
  const child = spawn(locate('nginx'), ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'pipe' });
  // nginx prints nothing when it starts well: wait until it accepts connections.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode})`);
    if (await fetch(`http://127.0.0.1:${port}/`).then((r) => r.body?.cancel().then(() => true) ?? true, () => false)) break;
    if (Date.now() > deadline) throw new Error('nginx did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      await stopChild(child, 'SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Redis (unless REDIS_URL is set), `instances` members of `script` on it, nginx in front. Members
 * share MINIMCP_SECRET (a random one unless set) and a key prefix. `stop()` ends them all.
 */
export async function startCluster({ instances = 3, script = MATH_MEMBER, env = {} } = {}) {
  const redis = await startRedis();
  const members = [];
  let lb;
  const stop = async () => {
    await lb?.stop();
    await Promise.all(members.map((m) => m.stop()));
    await redis.stop();
  };
  try {
    const shared = {
      REDIS_URL: redis.url,
      MINIMCP_SECRET: process.env.MINIMCP_SECRET ?? randomBytes(32).toString('base64url'),
      MINIMCP_REDIS_PREFIX: process.env.MINIMCP_REDIS_PREFIX ?? `mcp${randomBytes(4).toString('hex')}:`,
      ...env,
    };
    for (const started of await Promise.allSettled(Array.from({ length: instances }, () => startMember(script, shared)))) {
      if (started.status === 'rejected') throw started.reason;
      members.push(started.value);
    }
    lb = await startNginx(members.map((m) => new URL(m.url).host));
    return { url: lb.url, redis, members, balancer: lb, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function main() {
  const instances = Number(process.argv[2] ?? process.env.INSTANCES ?? 3);
  if (!Number.isInteger(instances) || instances < 1) throw new Error(`start:cluster: the instance count must be a positive integer, not ${process.argv[2]}`);
  const missing = missingBinaries();
  if (missing.length > 0) throw new Error(`start:cluster needs ${missing.join(' and ')} (apt-get install -y redis-server nginx; or set REDIS_URL)`);
  const cluster = await startCluster({ instances });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void cluster.stop().finally(() => process.exit(0));
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, stop);
  for (const member of cluster.members) {
    member.child.once('exit', (code, signal) => {
      if (!stopping) console.error(`member ${member.pid} exited (${code ?? signal}); the others go on`);
    });
  }
  console.log(`MiniMCP cluster: ${instances} math members on ${cluster.redis.url}, behind nginx (round-robin, no affinity)`);
  for (const member of cluster.members) console.log(`  member ${member.pid}: ${member.url}`);
  console.log(`MiniMCP cluster listening on ${cluster.url}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
