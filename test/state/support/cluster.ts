/**
 * The cluster harness: its own redis-server on a free port (REDIS_URL points it at an existing one),
 * N instances as separate processes (test/state/support/member.ts), and nginx in front with
 * round-robin, no affinity and no retry. Without redis-server or nginx on the machine the suites
 * skip with one visible line, except under CI=true, where that is a failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { missingClusterBinaries, waitFor } from '../../../scripts/cluster-kit.mjs';

// redis-server and nginx are started by scripts/cluster-kit.mjs, which the benchmark shares.
export { freePort, startNginx, startRedis, type Balancer, type Redis } from '../../../scripts/cluster-kit.mjs';

/** Whether the cluster suites can run here; logs the one skip line, or throws under CI. */
export function clusterAvailable(): boolean {
  const missing = missingClusterBinaries();
  if (missing.length === 0) return true;
  const line = `[skip] Redis/cluster suites: ${missing.join(' and ')} not found (apt-get install -y redis-server nginx)`;
  if (process.env.CI === 'true') throw new Error(`${line}; CI=true requires them`);
  console.warn(line);
  return false;
}

export interface Member { url: string; pid: number; child: ChildProcess; stop(): Promise<void> }

const MEMBER = fileURLToPath(new URL('./member.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url));

/** A member process: `entry` (default member.ts) must print `READY <url>`. */
export async function startMember(env: Record<string, string>, entry = MEMBER): Promise<Member> {
  const child = spawn(process.execPath, ['--import', TSX, entry], { env: { ...process.env, PORT: '0', ...env }, stdio: 'pipe' });
  const [, url] = await waitFor(child, /READY (\S+)/, 'cluster member');
  return {
    url: url!,
    pid: child.pid!,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
