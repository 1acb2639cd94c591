/**
 * A local cluster for the cluster and fan-out scenarios: a private redis-server, N members
 * (bench/servers/minimcp-cluster.ts, compiled, on the built dist/) and, on request, nginx with
 * round-robin in front. The processes come from scripts/cluster-kit.mjs, which the cluster tests use
 * too. With CPU pinning on, every server process shares the server CPUs (all but CPU 0, which the
 * load process has).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { missingClusterBinaries, startNginx, startRedis, waitFor } from '../../scripts/cluster-kit.mjs';
import { machine } from '../lib/proc.mjs';

const MEMBER = 'results/tmp/build/bench/servers/minimcp-cluster.js';
/** The fan-out floor (no MCP): node:http streams, with Redis pub/sub between processes in a cluster. */
export const FLOOR_MEMBER = 'servers/floor-fanout.mjs';
const SECRET = 'bench-cluster-secret-of-at-least-32-bytes';

/** Why a cluster cannot run here, or undefined. */
export const clusterMissing = () => {
  const missing = missingClusterBinaries();
  return missing.length ? `${missing.join(' and ')} not found (apt-get install -y redis-server nginx)` : undefined;
};

/** The CPUs the server side may use: 1..n-1 (CPU 0 runs the load), or just 1 on a 2-CPU machine. */
const serverCpus = () => {
  const n = machine().nproc;
  return n > 2 ? `1-${n - 1}` : '1';
};

/** The pids of a process's children (nginx's master forks the worker that does the work). */
export const childPids = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

async function startMember(cmd, env) {
  const child = spawn(cmd[0], cmd.slice(1), { env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const [, url] = await waitFor(child, /READY (\S+)/, 'cluster member', 30_000);
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One member on the memory state (no Redis): the single-process reference. `script`: another member program. */
export const startStandalone = ({ here, pinned, script = MEMBER }) => startMember(pinned(serverCpus(), [process.execPath, `${here}${script}`]), { REDIS_URL: '' });

/** Redis and `size` members (`script`: another member program); `balance(members)` puts nginx in front of some of them. */
export async function startCluster({ size, here, pinned, script = MEMBER }) {
  const cpus = serverCpus();
  const wrap = pinned(cpus, []);
  const redis = await startRedis({ wrap });
  const env = { REDIS_URL: redis.url, MINIMCP_SECRET: SECRET, MINIMCP_REDIS_PREFIX: `bench${process.pid}:` };
  const members = [];
  const balancers = [];
  const stop = async () => {
    await Promise.all(balancers.map((b) => b.stop()));
    await Promise.all(members.map((m) => m.stop()));
    await redis.stop();
  };
  try {
    for (let i = 0; i < size; i++) members.push(await startMember(pinned(cpus, [process.execPath, `${here}${script}`]), env));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    redis,
    members,
    stop,
    /** nginx round-robin over `some` members, with keep-alive upstream connections. */
    async balance(some, { workerConnections = 4096 } = {}) {
      const lb = await startNginx(some.map((m) => `127.0.0.1:${m.port}`), { wrap, workerConnections, upstreamKeepalive: 64 });
      balancers.push(lb);
      return { ...lb, workerPids: childPids(lb.pid) };
    },
  };
}
