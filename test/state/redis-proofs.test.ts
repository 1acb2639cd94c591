/**
 * The Redis DPoP proof store on a real redis-server: the same verdicts and bounds as the memory store
 * (replay per principal, maxProofsPerPrincipal, maxTotalProofs), ids leaving when their time passed,
 * and keys that expire by themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState, type RedisState } from '../../src/redis/index.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';

const available = clusterAvailable();

describe.skipIf(!available)('Redis proof store', () => {
  let redis: Redis;
  let state: RedisState;
  const prefix = `pf${process.pid}:`;
  beforeAll(async () => {
    redis = await startRedis();
    state = await redisState({ url: redis.url, prefix, proofLimits: { maxProofsPerPrincipal: 2, maxTotalProofs: 3 }, onError: () => {} });
  }, 30_000);
  afterAll(async () => {
    await state?.close();
    await redis?.stop();
  });

  it('keys ids by principal, keeps the bounds across calls, and forgets ids whose time passed', async () => {
    const soon = Date.now() + 300;
    const later = Date.now() + 60_000;
    const verdicts = [];
    for (const [jti, until] of [['a', soon], ['b', later], ['c', later]] as const) verdicts.push(await state.proofs.remember('alice', jti, until));
    expect(verdicts).toEqual(['fresh', 'fresh', 'maxProofsPerPrincipal']);
    expect(await state.proofs.remember('bob', 'a', later)).toBe('fresh');
    expect(await state.proofs.remember('bob', 'a', later)).toBe('replayed');
    expect(await state.proofs.remember('carol', 'x', later)).toBe('maxTotalProofs');
    const ttl = (await import('redis')).createClient({ url: redis.url });
    await ttl.connect();
    try {
      expect(await ttl.pTTL(`${prefix}dpop:alice`)).toBeGreaterThan(0);
      expect(await ttl.pTTL(`${prefix}dpop:alice`)).toBeLessThanOrEqual(60_001);
      expect(await ttl.pTTL(`${prefix}dpop-all`)).toBeGreaterThan(300);
    } finally {
      await ttl.quit();
    }
    await new Promise((resolve) => setTimeout(resolve, 320));
    // 'a' has left (its time passed) while 'b' stays: room for one more, and 'a' is no replay now.
    expect(await state.proofs.remember('alice', 'a', later)).toBe('fresh');
    expect(await state.proofs.remember('alice', 'b', later)).toBe('replayed');
  });
});
