/**
 * The Redis DPoP proof store on a real redis-server: the same verdicts and bounds as the memory store
 * (replay per principal, maxProofsPerPrincipal, maxTotalProofs), ids leaving when their time passed,
 * and keys that expire by themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState, type RedisState } from '../../src/redis/index.js';
import { MemoryProofStore } from '../../src/state/proofs.js';
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
      expect(await ttl.pTTL(`${prefix}dpop-ledger:alice`)).toBeGreaterThan(0);
      expect(await ttl.pTTL(`${prefix}dpop-ledger:alice`)).toBeLessThanOrEqual(60_001);
      expect(await ttl.pTTL(`${prefix}dpop-ledger`)).toBeGreaterThan(300);
    } finally {
      await ttl.quit();
    }
    await new Promise((resolve) => setTimeout(resolve, 320));
    // 'a' has left (its time passed), so it is no replay now, while 'b' stays. Alice still holds her
    // share (1 of the 2 shared ids, bob holding the other), so one more is hers only once bob's leave.
    expect(await state.proofs.remember('alice', 'a', later)).toBe('maxTotalProofs');
    expect(await state.proofs.remember('alice', 'b', later)).toBe('replayed');
    expect(await state.proofs.remember('dave', 'd', later)).toBe('fresh');
  });

  it('shares the total fairly, as the memory store does: busy principals cannot lock a newcomer out', async () => {
    const limits = { maxProofsPerPrincipal: 10, maxTotalProofs: 40 };
    const fair = await redisState({ url: redis.url, prefix: `${prefix}fair:`, proofLimits: limits, onError: () => {} });
    try {
      const memory = new MemoryProofStore(limits);
      const later = Date.now() + 60_000;
      const asks = [...['a', 'b', 'c', 'd'].flatMap((who) => Array.from({ length: 10 }, (_, i) => [who, `${i}`])), ['d', 'more'], ['newcomer', 'x'], ['newcomer-2', 'y']];
      const fromRedis: string[] = [];
      for (const [who, jti] of asks) fromRedis.push(`${who} ${await fair.proofs.remember(who!, jti!, later)}`);
      expect(fromRedis).toEqual(asks.map(([who, jti]) => `${who} ${memory.remember(who!, jti!, later)}`));
      expect(fromRedis.slice(-3)).toEqual(['d maxTotalProofs', 'newcomer fresh', 'newcomer-2 fresh']);
    } finally {
      await fair.close();
    }
  });
});
