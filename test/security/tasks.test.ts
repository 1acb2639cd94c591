/**
 * Issue 24, findings 2 and 5: finished tasks were kept with their whole results and counted against
 * nothing (300 tasks of 3.9 MiB: 84 -> 1,586 MiB), a client TTL of 1 ms made the per-principal cap
 * a rate (700 tasks of one principal), the handler of an expired task ran on until the next
 * heartbeat, and the memory store scanned everyone's tasks for each principal's call. The Redis
 * variants are in test/state/redis-task-bounds.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { MemoryTaskStore } from '../../src/state/memory-task-store.js';
import type { TaskRecord } from '../../src/state/task-store.js';
import { until } from '../support/until.js';
import { taskServer } from './support/tasks.js';

describe('tasks are bounded per principal and in all', () => {
  it('finished tasks count against maxPerPrincipal until they expire; another principal is unaffected', async () => {
    const { client } = taskServer({ maxPerPrincipal: 3 });
    const alice = await client('alice');
    for (let i = 0; i < 3; i++) {
      const { task } = (await alice.start('sized')).result;
      expect((await alice.call('tasks/result', { taskId: task.taskId })).result).toBeDefined(); // finished
    }
    expect((await alice.start('sized')).error).toMatchObject({ code: -32602, data: { bound: 'maxPerPrincipal' } });
    expect((await (await client('bob')).start('sized')).result.task).toBeDefined();
  });

  it('a client TTL of 1 ms gets the server floor (minTtlMs, 10 s): 700 quick tasks of one principal keep at most 100', async () => {
    const { client } = taskServer();
    const mallory = await client('mallory');
    const first = (await mallory.start('sized', {}, { ttl: 1 })).result.task;
    expect(first.ttl).toBe(10_000);
    let accepted = 1;
    for (let i = 1; i < 700; i++) if ((await mallory.start('sized', {}, { ttl: 1 })).result) accepted++;
    expect(accepted).toBe(100);
  });

  it('a result past maxResultChars (1 MiB) is not kept: the task fails with -32603 naming the bound, logged once', async () => {
    const { client, errors } = taskServer();
    const alice = await client('alice');
    for (let i = 0; i < 2; i++) {
      const { task } = (await alice.start('sized', { chars: 1_100_000 })).result;
      const reply = await alice.call('tasks/result', { taskId: task.taskId });
      expect(reply.error).toMatchObject({ code: -32603, data: { bound: 'maxResultChars' } });
      expect(JSON.stringify(reply).length).toBeLessThan(1_000);
      expect((await alice.call('tasks/get', { taskId: task.taskId })).result).toMatchObject({ status: 'failed' });
    }
    expect(errors.map((e: any) => [e.bound, e.principal])).toEqual([['maxResultChars', 'alice']]);
  });

  it('the results one principal keeps are bounded in bytes (maxStoredCharsPerPrincipal); another principal still keeps its own', async () => {
    const { client } = taskServer({ maxStoredCharsPerPrincipal: 10_000 });
    const alice = await client('alice');
    const outcomes: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const { task } = (await alice.start('sized', { chars: 4_000 })).result;
      const reply = await alice.call('tasks/result', { taskId: task.taskId });
      outcomes.push(reply.error?.data?.bound ?? 'kept');
    }
    expect(outcomes).toEqual(['kept', 'kept', 'maxStoredCharsPerPrincipal']);
    const bob = await client('bob');
    const { task } = (await bob.start('sized', { chars: 4_000 })).result;
    expect((await bob.call('tasks/result', { taskId: task.taskId })).result.content[0].text).toHaveLength(4_000);
  });

  it('server-wide: maxTasks refuses a new task (-32603), maxStoredChars refuses a result', async () => {
    const counted = taskServer({ maxTasks: 2 });
    await (await counted.client('a')).start('sized');
    await (await counted.client('b')).start('sized');
    expect((await (await counted.client('c')).start('sized')).error).toMatchObject({ code: -32603, data: { bound: 'maxTasks' } });
    const sized = taskServer({ maxStoredChars: 5_000 });
    const a = (await (await sized.client('a')).start('sized', { chars: 4_000 })).result.task;
    const bClient = await sized.client('b');
    const b = (await bClient.start('sized', { chars: 4_000 })).result.task;
    expect((await bClient.call('tasks/result', { taskId: b.taskId })).error).toMatchObject({ data: { bound: 'maxStoredChars' } });
    expect(a).toBeDefined();
  });

  it('the handler of an expired task is stopped when the task expires, not at the next heartbeat (10 s)', async () => {
    const { client, stopped } = taskServer({ minTtlMs: 50 });
    const alice = await client('alice');
    const { task } = (await alice.start('wait', {}, { ttl: 50 })).result;
    expect(task.ttl).toBe(50);
    await until(() => stopped.length, (n) => n > 0);
    expect(stopped).toEqual(['wait']);
  });
});

describe('the memory store indexes tasks by principal', () => {
  /** How many Map entries an iteration walks while `run` runs. */
  function entriesWalked(run: () => void): number {
    const original = Map.prototype.values;
    let walked = 0;
    Map.prototype.values = function values(this: Map<unknown, unknown>) {
      const inner = original.call(this);
      return { [Symbol.iterator]() { return this; }, next: () => (walked++, inner.next()) } as any;
    };
    try {
      run();
    } finally {
      Map.prototype.values = original;
    }
    return walked;
  }

  it('a principal\'s list, live count and cap do not walk other principals\' tasks', () => {
    const store = new MemoryTaskStore(() => 1_000);
    const record = (taskId: string, principal: string): TaskRecord => ({
      taskId, principal, protocolVersion: '2025-11-25', status: 'working', createdAt: '', lastUpdatedAt: '', ttlMs: 60_000, expiresAt: 61_000, owner: 'i',
    });
    for (let i = 0; i < 5_000; i++) store.create(record(`o${i}`, `other-${i % 50}`));
    store.create(record('a1', 'alice'));
    const walked = entriesWalked(() => {
      store.list('alice');
      store.live('alice');
      store.create(record('a2', 'alice'), 100);
    });
    expect(walked).toBeLessThan(50);
  });
});
