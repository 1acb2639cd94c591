/**
 * Issue 24, findings 2 and 5 on Redis (the memory variants: test/security/tasks.test.ts): finished
 * tasks count against the principal's cap until they expire, the server-wide cap, and the byte bounds
 * on kept results (per task, per principal, in all), counted in the scripts across two instances.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState, type RedisState } from '../../src/redis/index.js';
import type { TaskRecord } from '../../src/state/task-store.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';
import { sleep } from './support/http.js';

const available = clusterAvailable();

describe.skipIf(!available)('Redis task bounds (real redis-server)', () => {
  let redis: Redis;
  const states: RedisState[] = [];
  let n = 0;
  /** Two instances on one prefix of their own. */
  async function pair(): Promise<[RedisState, RedisState]> {
    const prefix = `rtb${process.pid}-${++n}:`;
    const made = await Promise.all([0, 1].map(() => redisState({ url: redis.url, prefix, onError: () => {} })));
    states.push(...made);
    await made[0]!.tasks.beat('inst-a', Date.now() + 60_000);
    return made as [RedisState, RedisState];
  }
  let id = 0;
  const task = (principal: string, ttlMs = 60_000): TaskRecord => {
    const now = Date.now();
    const iso = new Date(now).toISOString();
    return { taskId: `t${process.pid}-${++id}`, principal, protocolVersion: '2025-11-25', status: 'working', createdAt: iso, lastUpdatedAt: iso, ttlMs, expiresAt: now + ttlMs, owner: 'inst-a' };
  };
  const big = (chars: number) => ({ content: [{ type: 'text', text: 'x'.repeat(chars) }] });

  beforeAll(async () => {
    redis = await startRedis();
  }, 60_000);
  afterAll(async () => {
    for (const s of states) await s.close();
    await redis?.stop();
  });

  it('finished tasks keep their place until they expire, across instances', async () => {
    const [a, b] = await pair();
    const short = task('mallory', 300);
    expect(await a.tasks.create(short, { maxPerPrincipal: 2 })).toBe(true);
    const done = task('mallory');
    expect(await b.tasks.create(done, { maxPerPrincipal: 2 })).toBe(true);
    await a.tasks.settle(short.taskId, { status: 'completed', result: {} });
    await b.tasks.settle(done.taskId, { status: 'completed', result: {} });
    expect(await a.tasks.create(task('mallory'), { maxPerPrincipal: 2 })).toBe(false);
    expect(await b.tasks.create(task('bob'), { maxPerPrincipal: 2 })).toBe(true);
    await sleep(350); // the short one expired: its place is free
    expect(await b.tasks.create(task('mallory'), { maxPerPrincipal: 2 })).toBe(true);
  });

  it('the server-wide cap (maxTasks) holds across instances', async () => {
    const [a, b] = await pair();
    expect(await a.tasks.create(task('p1'), { maxTasks: 2 })).toBe(true);
    expect(await b.tasks.create(task('p2'), { maxTasks: 2 })).toBe(true);
    expect(await a.tasks.create(task('p3'), { maxTasks: 2 })).toBe('maxTasks');
  });

  it('a result past maxResultChars is kept as a failure naming the bound', async () => {
    const [a, b] = await pair();
    const t = task('alice');
    await a.tasks.create(t);
    expect(await a.tasks.settle(t.taskId, { status: 'completed', result: big(2_000) }, { maxResultChars: 1_000 })).toBe('maxResultChars');
    const read = await b.tasks.get(t.taskId, 'alice');
    expect(read).toMatchObject({ status: 'failed', error: { code: -32603, data: { bound: 'maxResultChars' } } });
    expect(read).not.toHaveProperty('result');
  });

  it('results per principal (maxStoredCharsPerPrincipal) and in all (maxStoredChars), across instances; an expired task gives its bytes back', async () => {
    const [a, b] = await pair();
    const bounds = { maxStoredCharsPerPrincipal: 10_000, maxStoredChars: 15_000 };
    const kept: string[] = [];
    for (const [state, principal, ttl] of [[a, 'alice', 300], [b, 'alice', 60_000], [a, 'alice', 60_000], [b, 'bob', 60_000], [a, 'carol', 60_000]] as const) {
      const t = task(principal, ttl);
      await state.tasks.create(t);
      await state.tasks.settle(t.taskId, { status: 'completed', result: big(4_000) }, bounds);
      const read = await b.tasks.get(t.taskId, principal);
      kept.push(read?.status === 'completed' ? 'kept' : String((read?.error?.data as { bound?: string })?.bound));
    }
    expect(kept).toEqual(['kept', 'kept', 'maxStoredCharsPerPrincipal', 'kept', 'maxStoredChars']);
    await sleep(350); // alice's first expired
    const t = task('carol');
    await a.tasks.create(t);
    await a.tasks.settle(t.taskId, { status: 'completed', result: big(4_000) }, bounds);
    expect((await b.tasks.get(t.taskId, 'carol'))?.status).toBe('completed');
  });
});
