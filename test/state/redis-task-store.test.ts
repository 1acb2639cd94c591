/**
 * The Redis task store against a private redis-server (test/state/support/cluster.ts starts it on a
 * free port): two states on one Redis stand for two instances.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState, type RedisState } from '../../src/redis/index.js';
import type { TaskRecord } from '../../src/state/task-store.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';
import { sleep } from './support/http.js';

const available = clusterAvailable();
const LOST = 'The task was lost: the server instance running it stopped.';

describe.skipIf(!available)('RedisTaskStore (real redis-server)', () => {
  let redis: Redis;
  let a: RedisState;
  let b: RedisState;
  let raw: ReturnType<typeof createClient>;
  const prefix = `rts${process.pid}:`;
  let n = 0;

  /** A fresh task record owned by `owner`, alive (the owner beats) unless told otherwise. */
  async function task(principal = 'alice', { ttlMs = 60_000, owner = 'inst-a', beat = true } = {}): Promise<TaskRecord> {
    const now = Date.now();
    const iso = new Date(now).toISOString();
    if (beat) await a.tasks.beat(owner, now + 60_000);
    return { taskId: `task-${process.pid}-${++n}`, principal, protocolVersion: '2026-07-28', status: 'working', createdAt: iso, lastUpdatedAt: iso, ttlMs, pollIntervalMs: 50, expiresAt: now + ttlMs, owner };
  }

  /** The changes `store` delivers to a watcher of `taskId`. */
  function watched(state: RedisState, taskId: string): TaskRecord[] {
    const seen: TaskRecord[] = [];
    state.tasks.watch(taskId, (t) => seen.push(t));
    return seen;
  }

  async function until(check: () => boolean | Promise<boolean>, ms = 3_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await sleep(10);
    }
  }

  beforeAll(async () => {
    redis = await startRedis();
    a = await redisState({ url: redis.url, prefix, onError: () => {} });
    b = await redisState({ url: redis.url, prefix, onError: () => {} });
    raw = createClient({ url: redis.url });
    await raw.connect();
  }, 60_000);
  afterAll(async () => {
    await raw?.close();
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('a running task\'s messages reach listeners on every instance, in order with its writes; unwatched ones are dropped', async () => {
    const t = await task();
    await a.tasks.create(t);
    const heard: string[] = [];
    const stop = b.tasks.messages!.listen(t.taskId, (m) => heard.push(`${(m as any).method}:${(m as any).params.progress}`));
    b.tasks.watch(t.taskId, (w) => heard.push(`status:${w.status}`));
    for (let i = 1; i <= 3; i++) a.tasks.messages!.publish(t.taskId, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: i } });
    await a.tasks.settle(t.taskId, { status: 'completed', result: { content: [] } });
    a.tasks.messages!.publish(`${t.taskId}-other`, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 9 } });
    await until(() => heard.includes('status:completed'));
    expect(heard).toEqual(['notifications/progress:1', 'notifications/progress:2', 'notifications/progress:3', 'status:completed']);
    stop();
    const later: unknown[] = [];
    b.tasks.messages!.listen('marker', (m) => later.push(m));
    a.tasks.messages!.publish(t.taskId, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 4 } });
    a.tasks.messages!.publish('marker', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 5 } });
    await until(() => later.length === 1); // published after the stopped one: once it is here, that one was too
    expect(heard).toHaveLength(4);
  });

  it('a task created on one instance reads the same on another, only for its principal', async () => {
    const t = await task();
    expect(await a.tasks.create(t)).toBe(true);
    const read = await b.tasks.get(t.taskId, 'alice');
    expect(read).toEqual({ ...t });
    expect(await b.tasks.get(t.taskId, 'bob')).toBeUndefined();
    expect(await b.tasks.get('no-such-task', 'alice')).toBeUndefined();
    expect(await b.tasks.cancel(t.taskId, 'bob')).toEqual({ outcome: 'unknown' });
    expect(await b.tasks.answer(t.taskId, 'bob', { x: 1 })).toBe(false);
  });

  it('keeps results exactly (empty arrays stay arrays) and settles once', async () => {
    const t = await task();
    await a.tasks.create(t);
    const result = { content: [], structuredContent: { rows: [], nested: { list: [[]], none: null } }, isError: false };
    expect(await a.tasks.settle(t.taskId, { status: 'completed', result })).toBe(true);
    expect(await a.tasks.settle(t.taskId, { status: 'failed', error: { code: -32603, message: 'late' } })).toBe(false);
    const read = await b.tasks.get(t.taskId, 'alice');
    expect(read?.status).toBe('completed');
    expect(read?.result).toEqual(result);
    expect(read?.error).toBeUndefined();
    expect(await b.tasks.cancel(t.taskId, 'alice')).toMatchObject({ outcome: 'terminal', task: { status: 'completed' } });
  });

  it('input: ask on the owner, answer on another instance (unknown keys ignored), the owner sees it and takes it once', async () => {
    const t = await task();
    await a.tasks.create(t);
    const seenByOwner = watched(a, t.taskId);
    await a.tasks.ask(t.taskId, { k1: { method: 'elicitation/create', params: { message: 'name?', requestedSchema: { type: 'object', properties: {} } } } });
    const waiting = await b.tasks.get(t.taskId, 'alice');
    expect(waiting?.status).toBe('input_required');
    expect(waiting?.inputRequests).toEqual({ k1: { method: 'elicitation/create', params: { message: 'name?', requestedSchema: { type: 'object', properties: {} } } } });
    const answer = { action: 'accept', content: { tags: [] } };
    expect(await b.tasks.answer(t.taskId, 'alice', { k1: answer, stray: 1 })).toBe(true);
    await until(() => seenByOwner.some((r) => r.status === 'working' && r.inputResponses?.k1 !== undefined));
    expect(seenByOwner.map((r) => r.status)).toEqual(['input_required', 'working']);
    expect((await b.tasks.get(t.taskId, 'alice'))?.inputResponses).toEqual({ k1: answer });
    expect(await a.tasks.take(t.taskId, 'k1')).toEqual({ value: answer });
    expect(await a.tasks.take(t.taskId, 'k1')).toBeUndefined();
    expect(await a.tasks.take(t.taskId, 'stray')).toBeUndefined();
  });

  it('cancel on another instance: compare-and-set, the owner watching sees cancelRequested, a later settle loses', async () => {
    const t = await task();
    await a.tasks.create(t);
    const seenByOwner = watched(a, t.taskId);
    const outcome = await b.tasks.cancel(t.taskId, 'alice', 'stop it');
    expect(outcome).toMatchObject({ outcome: 'cancelled', task: { status: 'cancelled', statusMessage: 'stop it', cancelRequested: true } });
    await until(() => seenByOwner.length > 0);
    expect(seenByOwner[0]).toMatchObject({ status: 'cancelled', cancelRequested: true });
    expect(await a.tasks.settle(t.taskId, { status: 'completed', result: { content: [] } })).toBe(false);
  });

  it('the cap on kept tasks holds across instances: 20 concurrent creates on two instances, cap 5, exactly 5 stored', async () => {
    const principal = `capped-${n}`;
    const records = await Promise.all(Array.from({ length: 20 }, () => task(principal)));
    const stored = await Promise.all(records.map((r, i) => (i % 2 ? a : b).tasks.create(r, 5)));
    expect(stored.filter(Boolean)).toHaveLength(5);
    expect(await b.tasks.live(principal)).toBe(5);
    // An ended task keeps its place until it expires (issue 24, finding 2).
    const first = records[stored.indexOf(true)]!;
    await a.tasks.settle(first.taskId, { status: 'completed', result: {} });
    expect(await b.tasks.live(principal)).toBe(4);
    expect(await b.tasks.create(await task(principal), 5)).toBe(false);
  });

  it('lists only the caller\'s tasks, paginated, and refuses a bad cursor', async () => {
    const principal = `lister-${n}`;
    const mine = [];
    for (let i = 0; i < 5; i++) {
      const t = await task(principal);
      await a.tasks.create(t);
      mine.push(t.taskId);
    }
    await a.tasks.create(await task(`other-${n}`));
    const ids: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    do {
      const page = await b.tasks.list(principal, cursor, 2);
      expect(page).toBeDefined();
      sizes.push(page!.tasks.length);
      ids.push(...page!.tasks.map((t) => t.taskId));
      cursor = page!.nextCursor;
    } while (cursor !== undefined);
    expect(sizes).toEqual([2, 2, 1]);
    expect(ids).toEqual(mine);
    expect(await b.tasks.list(principal, 'not-a-cursor', 2)).toBeUndefined();
    expect(await b.tasks.list(principal, (await task(`other-${n}`)).taskId, 2)).toBeUndefined();
  });

  it('every key has a TTL no longer than the task\'s, and an expired task is gone everywhere', async () => {
    const principal = `short-${n}`;
    const t = await task(principal, { ttlMs: 300 });
    await a.tasks.create(t);
    await a.tasks.ask(t.taskId, { k: { method: 'roots/list' } });
    const keys = [`task:${t.taskId}`, `task:${t.taskId}:in`, `tasks-live:${principal}`, `tasks-of:${principal}`].map((k) => prefix + k);
    for (const key of keys) {
      const ttl = await raw.pTTL(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(300);
    }
    expect(await raw.pTTL(`${prefix}task-owner:inst-a`)).toBeGreaterThan(0);
    await sleep(400);
    expect(await b.tasks.get(t.taskId, principal)).toBeUndefined();
    expect(await b.tasks.list(principal)).toEqual({ tasks: [] });
    expect(await b.tasks.live(principal)).toBe(0);
    for (const key of keys) expect(await raw.exists(key), key).toBe(0);
  });

  it('a task whose owner stops beating reads as failed (with the reason) once its lease runs out, on every instance', async () => {
    const principal = `orphan-${n}`;
    const owner = `dying-${n}`;
    await a.tasks.beat(owner, Date.now() + 300);
    const t = await task(principal, { owner, beat: false });
    await a.tasks.create(t);
    const seen = watched(b, t.taskId);
    expect((await b.tasks.get(t.taskId, principal))?.status).toBe('working');
    expect(await b.tasks.live(principal)).toBe(1);
    await sleep(400);
    const lost = await b.tasks.get(t.taskId, principal);
    expect(lost).toMatchObject({ status: 'failed', statusMessage: LOST, error: { code: -32603, message: LOST } });
    await until(() => seen.some((r) => r.status === 'failed'));
    expect(await b.tasks.live(principal)).toBe(0);
    expect(await a.tasks.settle(t.taskId, { status: 'completed', result: {} })).toBe(false);
  });

  it('scripts load again after Redis forgets them (SCRIPT FLUSH, as after a restart)', async () => {
    const t = await task();
    await a.tasks.create(t);
    await raw.scriptFlush();
    expect((await a.tasks.get(t.taskId, 'alice'))?.taskId).toBe(t.taskId);
  });
});
