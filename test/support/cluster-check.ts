/**
 * Vitest global setup: whether this machine can run the Redis and cluster suites, said once per run
 * (each suite asks `clusterAvailable()` quietly). Under CI=true a missing binary fails the run.
 */
import { missingClusterBinaries } from '../../scripts/cluster-kit.mjs';

export default function clusterCheck(): void {
  const missing = missingClusterBinaries();
  if (missing.length === 0) return;
  const line = `[skip] Redis/cluster suites: ${missing.join(' and ')} not found (apt-get install -y redis-server nginx)`;
  if (process.env.CI === 'true') throw new Error(`${line}; CI=true requires them`);
  console.warn(line);
}
