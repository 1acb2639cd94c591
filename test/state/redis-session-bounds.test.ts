/**
 * Issue 24, findings 1 and 7 on Redis (the memory variants are test/security/subscriptions.test.ts and
 * session-eviction.test.ts): subscriptions bounded in count and bytes per session, per principal and
 * in all, counted by one script across instances; a principal's sessions forget only its own; and
 * an expired session gives its counts back.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState, type RedisState } from '../../src/redis/index.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';
import { sleep } from './support/http.js';

const available = clusterAvailable();
const uri = (i: number, size = 8_192) => `test://r/${i}/`.padEnd(size, 'x');

describe.skipIf(!available)('Redis session bounds (real redis-server)', () => {
  let redis: Redis;
  let raw: ReturnType<typeof createClient>;
  const states: RedisState[] = [];
  let n = 0;
  const state = async (options: Parameters<typeof redisState>[0] = {}) => {
    const made = await redisState({ url: redis.url, prefix: `rsb${process.pid}-${++n}:`, onError: () => {}, ...options });
    states.push(made);
    return made;
  };

  beforeAll(async () => {
    redis = await startRedis();
    raw = createClient({ url: redis.url });
    await raw.connect();
  }, 60_000);
  afterAll(async () => {
    await raw?.close();
    for (const s of states) await s.close();
    await redis?.stop();
  });

  it('a session keeps at most 256 KiB of URIs by default; the refusal names the bound and keeps nothing', async () => {
    const { sessions } = await state();
    for (let i = 0; i < 32; i++) await sessions.update('s1', { subscribe: uri(i) }, 'bob');
    await expect(sessions.update('s1', { subscribe: uri(32) }, 'bob')).rejects.toMatchObject({ code: -32602, data: { bound: 'maxSubscriptionChars' } });
    expect((await sessions.get('s1'))?.subscriptions).toHaveLength(32);
    await sessions.update('s1', { subscribe: uri(0) }, 'bob'); // already kept: not counted twice
    await sessions.update('s1', { unsubscribe: uri(0) }, 'bob');
    await sessions.update('s1', { subscribe: uri(32) }, 'bob');
  });

  it('per principal over its sessions, across instances; another principal is untouched', async () => {
    const a = await state({ sessionLimits: { maxSubscriptionsPerPrincipal: 3 } });
    const b = await state({ prefix: `rsb${process.pid}-${n}:`, sessionLimits: { maxSubscriptionsPerPrincipal: 3 } });
    await a.sessions.update('m1', { subscribe: 'test://1' }, 'mallory');
    await b.sessions.update('m2', { subscribe: 'test://2' }, 'mallory');
    await a.sessions.update('m3', { subscribe: 'test://3' }, 'mallory');
    await expect(b.sessions.update('m4', { subscribe: 'test://4' }, 'mallory')).rejects.toMatchObject({ data: { bound: 'maxSubscriptionsPerPrincipal' } });
    await b.sessions.update('b1', { subscribe: 'test://4' }, 'bob');
    await expect(a.sessions.update('x1', { subscribe: 'test://5' }, 'bob')).resolves.toBeUndefined();
  });

  it('a principal at its share of sessions forgets its own oldest; a full store refuses a newcomer (-32603)', async () => {
    const { sessions } = await state({ sessionLimits: { maxSessions: 3, maxSessionsPerPrincipal: 2 } });
    await sessions.update('b1', { logLevel: 'debug' }, 'bob');
    for (let i = 0; i < 5; i++) await sessions.update(`m${i}`, { logLevel: 'error' }, 'mallory');
    expect(await sessions.get('b1')).toMatchObject({ logLevel: 'debug' });
    expect([await sessions.get('m2'), await sessions.get('m3'), await sessions.get('m4')].map((s) => s !== undefined)).toEqual([false, true, true]);
    await expect(sessions.update('c1', { logLevel: 'info' }, 'carol')).rejects.toMatchObject({ code: -32603, data: { bound: 'maxSessions' } });
  });

  it('an expired session gives its counts back to its principal and the server', async () => {
    const { sessions } = await state({ sessionTtlMs: 100, sessionLimits: { maxTotalSubscriptions: 2 } });
    await sessions.update('e1', { subscribe: 'test://1' }, 'bob');
    await sessions.update('e1', { subscribe: 'test://2' }, 'bob');
    await expect(sessions.update('e2', { subscribe: 'test://3' }, 'alice')).rejects.toMatchObject({ data: { bound: 'maxTotalSubscriptions' } });
    await sleep(150);
    await sessions.update('e2', { subscribe: 'test://3' }, 'alice');
    expect(await sessions.get('e1')).toBeUndefined();
  });

  it('300 URIs of 900 KiB are refused before they reach Redis', async () => {
    const { sessions } = await state();
    const before = Number(/used_memory:(\d+)/.exec(await raw.info('memory'))![1]);
    const big = 'test://'.padEnd(900 * 1024, 'x');
    let refused = 0;
    for (let i = 0; i < 300; i++) await Promise.resolve(sessions.update(`big-${i}`, { subscribe: `${big}${i}` }, 'mallory')).catch(() => refused++);
    const after = Number(/used_memory:(\d+)/.exec(await raw.info('memory'))![1]);
    expect(refused).toBe(300);
    expect(after - before).toBeLessThan(8 * 1024 * 1024);
  });
});
