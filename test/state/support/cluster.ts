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

/** Whether the cluster suites can run here (the one skip line, or the CI failure, comes from test/support/cluster-check.ts). */
export function clusterAvailable(): boolean {
  const available = missingClusterBinaries().length === 0;
  if (!available && process.env.CI === 'true') throw new Error('CI=true requires redis-server and nginx');
  return available;
}

/** The member running the state tests' server (test/state/support/server.ts) on Redis. */
export const STATE_MEMBER = fileURLToPath(new URL('./member.ts', import.meta.url));
