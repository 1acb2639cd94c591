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
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingClusterBinaries, startNginx, startRedis, waitFor } from './cluster-kit.mjs';

// Redis and nginx come from cluster-kit.mjs (the benchmark's cluster cells use it too); this adds members and the whole.
export { freePort, missingClusterBinaries, startNginx, startRedis } from './cluster-kit.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = join(ROOT, 'node_modules/tsx/dist/loader.mjs');
/** The math example over HTTP: `npm start`, a cluster member when REDIS_URL is set. */
export const MATH_MEMBER = join(ROOT, 'examples/math/http.ts');

/** Ends a child with `signal` and waits for its exit (at once if it is gone). */
async function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
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

/**
 * Redis (unless REDIS_URL is set) and `instances` members of `script` on it, no balancer (the soak
 * under attack spreads its requests over the members itself). Members share MINIMCP_SECRET (a random
 * one unless set) and a key prefix. `stop()` ends them all.
 */
export async function startMembers({ instances = 3, script = MATH_MEMBER, env = {} } = {}) {
  const redis = await startRedis();
  const members = [];
  const stop = async () => {
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
    return { redis, members, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** startMembers() with nginx in front (round-robin, no affinity). `stop()` ends them all. */
export async function startCluster(options = {}) {
  const { redis, members, stop: stopMembers } = await startMembers(options);
  let lb;
  const stop = async () => {
    await lb?.stop();
    await stopMembers();
  };
  try {
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
  const missing = missingClusterBinaries();
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
