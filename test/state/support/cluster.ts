/**
 * The cluster harness: the launcher `npm run start:cluster` uses (scripts/cluster.mjs, with redis-server
 * and nginx from scripts/cluster-kit.mjs, which the benchmark shares: its own redis-server on a free port
 * or REDIS_URL, member processes, nginx with round-robin, no affinity and no retry), with the state
 * tests' member. Without redis-server or nginx on the machine the suites skip with one visible line,
 * except under CI=true, where that is a failure.
 */
import { fileURLToPath } from 'node:url';
import { missingClusterBinaries, startMember } from '../../../scripts/cluster.mjs';

export { startMember };

export { startCluster, startNginx, startRedis, type Balancer, type Cluster, type Member, type Redis } from '../../../scripts/cluster.mjs';

/** Whether the cluster suites can run here; logs the one skip line, or throws under CI. */
export function clusterAvailable(): boolean {
  const missing = missingClusterBinaries();
  if (missing.length === 0) return true;
  const line = `[skip] Redis/cluster suites: ${missing.join(' and ')} not found (apt-get install -y redis-server nginx)`;
  if (process.env.CI === 'true') throw new Error(`${line}; CI=true requires them`);
  console.warn(line);
  return false;
}

/** The member running the state tests' server (test/state/support/server.ts) on Redis. */
export const STATE_MEMBER = fileURLToPath(new URL('./member.ts', import.meta.url));
