/**
 * The examples' cluster switch: with REDIS_URL set, a server shares its state on Redis and signs
 * with MINIMCP_SECRET, so any number of instances started side by side behave as one server.
 * Without REDIS_URL, nothing changes (in-memory state, no dependency loaded).
 */
import type { MiniMCPOptions } from '../src/index.js';

export async function clusterOptions(): Promise<Partial<MiniMCPOptions>> {
  const url = process.env.REDIS_URL;
  if (!url) return {};
  const secret = process.env.MINIMCP_SECRET;
  if (!secret) throw new Error('REDIS_URL is set but MINIMCP_SECRET is not: cluster members need the same secret (32 bytes or more)');
  const { redisState } = await import('../src/redis/index.js');
  return { state: await redisState({ url, prefix: process.env.MINIMCP_REDIS_PREFIX }), requestState: { secret } };
}
