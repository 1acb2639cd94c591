/**
 * Issue 24, findings 2 and 5 on Redis (the memory variants: test/security/tasks.test.ts): finished
 * tasks count against the principal's cap until they expire, the server-wide cap, and the byte bounds
 * on kept results (per task, per principal, in all), counted in the scripts across two instances.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState, type RedisState } from '../../src/redis/index.js';
import type { TaskRecord } from '../../src/state/task-store.js';
import type { JsonObject } from '../../src/protocol/jsonrpc.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';
import { sleep } from './support/http.js';

const available = clusterAvailable();

describe.skipIf(!available)('Redis task bounds (real redis-server)', () => {
  let redis: Redis;
  const states: RedisState[] = [];
  let n = 0;
  /** Two instances on one prefix of their own. */
  let prefix = '';
  async function pair(): Promise<[RedisState, RedisState]> {
    prefix = `rtb${process.pid}-${++n}:`;
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

  /** `count` tasks of `principal` that all expire at `deadline`, each settled with `result` (bounds: none). */
  async function expiring(state: RedisState, count: number, principal: string, deadline: number, result: JsonObject): Promise<void> {
    for (let i = 0; i < count; i++) {
      const t = task(principal, deadline - Date.now());
      expect(await state.tasks.create(t)).toBe(true);
      await state.tasks.settle(t.taskId, { status: 'completed', result });
    }
    expect(Date.now()).toBeLessThan(deadline); // all were made before any expired
    await sleep(deadline + 100 - Date.now());
  }

  it('a result past maxStoredChars sweeps every expired task first, not one batch of 100 (it used to be refused for tasks already gone)', async () => {
    const [a] = await pair();
    await expiring(a, 300, 'p', Date.now() + 4_000, big(100)); // 300 × ~140 characters
    const t = task('p');
    await a.tasks.create(t);
    expect(await a.tasks.settle(t.taskId, { status: 'completed', result: big(35_000) }, { maxStoredChars: 45_000 })).toBe(true);
  }, 20_000);

  it('the caps count exactly past 100 expired tasks, and the ledger forgets a principal at zero (anonymous is one principal)', async () => {
    const [a] = await pair();
    await expiring(a, 160, '', Date.now() + 3_000, {});
    expect(await a.tasks.create(task(''), { maxPerPrincipal: 150, maxTasks: 150 })).toBe(true);
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      await a.tasks.create(task('alice', 100));
      expect(await raw.hGetAll(`${prefix}tasks-ledger:alice`)).toEqual({ count: '1' });
      await sleep(150);
      expect(await a.tasks.create(task('bob'))).toBe(true); // sweeps alice's
      expect(await raw.exists(`${prefix}tasks-ledger:alice`)).toBe(0);
      expect(await raw.hGetAll(`${prefix}tasks-ledger:`)).toMatchObject({ count: '1' });
      expect(await raw.hGetAll(`${prefix}tasks-ledger`)).toEqual({ count: '2', size: '0' });
    } finally {
      await raw.close();
    }
  }, 20_000);
});
