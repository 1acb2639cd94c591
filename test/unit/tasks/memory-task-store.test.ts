import { describe, expect, it } from 'vitest';
import { MemoryTaskStore } from '../../../src/state/memory-task-store.js';
import type { TaskRecord } from '../../../src/state/task-store.js';

function record(taskId: string, principal = 'alice', at = 1_000): TaskRecord {
  const iso = new Date(at).toISOString();
  return {
    taskId,
    principal,
    protocolVersion: '2026-07-28',
    status: 'working',
    createdAt: iso,
    lastUpdatedAt: iso,
    ttlMs: 60_000,
    expiresAt: at + 60_000,
    owner: 'instance-a',
  };
}

describe('MemoryTaskStore', () => {
  it('reads a task only for its principal', () => {
    const store = new MemoryTaskStore(() => 1_000);
    store.create(record('t1'));
    expect(store.get('t1', 'alice')?.status).toBe('working');
    expect(store.get('t1', 'bob')).toBeUndefined();
    expect(store.get('nope', 'alice')).toBeUndefined();
  });

  it('moves working -> input_required -> working as outstanding keys are answered, ignoring unknown keys', () => {
    const store = new MemoryTaskStore(() => 1_000);
    store.create(record('t1'));
    store.ask('t1', { a: { method: 'elicitation/create' }, b: { method: 'elicitation/create' } });
    expect(store.get('t1', 'alice')?.status).toBe('input_required');
    expect(store.answer('t1', 'bob', { a: 1 })).toBe(false);
    expect(store.answer('t1', 'alice', { a: 1, zzz: 2 })).toBe(true);
    const mid = store.get('t1', 'alice');
    expect(mid?.status).toBe('input_required');
    expect(Object.keys(mid?.inputRequests ?? {})).toEqual(['b']);
    store.answer('t1', 'alice', { b: 2 });
    expect(store.get('t1', 'alice')?.status).toBe('working');
    expect(store.take('t1', 'a')).toEqual({ value: 1 });
    expect(store.take('t1', 'a')).toBeUndefined();
    expect(store.take('t1', 'zzz')).toBeUndefined();
  });

  it('settles once: a terminal task never changes again', () => {
    const store = new MemoryTaskStore(() => 1_000);
    store.create(record('t1'));
    expect(store.settle('t1', { status: 'completed', result: { content: [] } })).toBe(true);
    expect(store.settle('t1', { status: 'failed', error: { code: -32603, message: 'x' } })).toBe(false);
    expect(store.get('t1', 'alice')).toMatchObject({ status: 'completed', result: { content: [] } });
    expect(store.cancel('t1', 'alice')).toMatchObject({ outcome: 'terminal' });
  });

  it('cancels for its principal only and tells the watchers', () => {
    const store = new MemoryTaskStore(() => 1_000);
    store.create(record('t1'));
    const seen: string[] = [];
    const stop = store.watch('t1', (t) => seen.push(`${t.status}:${t.cancelRequested === true}`));
    expect(store.cancel('t1', 'bob')).toEqual({ outcome: 'unknown' });
    expect(store.cancel('t1', 'alice')).toMatchObject({ outcome: 'cancelled', task: { status: 'cancelled' } });
    stop();
    store.note('t1', 'ignored');
    expect(seen).toEqual(['cancelled:true']);
    expect(store.settle('t1', { status: 'completed', result: {} })).toBe(false);
  });

  it('lists only the principal\'s tasks, paginated, and refuses an unknown cursor', () => {
    const store = new MemoryTaskStore(() => 1_000);
    for (let i = 0; i < 5; i++) store.create(record(`a${i}`));
    store.create(record('b0', 'bob'));
    const first = store.list('alice', undefined, 2);
    expect(first?.tasks.map((t) => t.taskId)).toEqual(['a0', 'a1']);
    const rest = store.list('alice', first?.nextCursor, 10);
    expect(rest?.tasks.map((t) => t.taskId)).toEqual(['a2', 'a3', 'a4']);
    expect(rest?.nextCursor).toBeUndefined();
    expect(store.list('alice', 'b0')).toBeUndefined();
    expect(store.live('alice')).toBe(5);
  });

  it('forgets a task past its TTL', () => {
    let now = 1_000;
    const store = new MemoryTaskStore(() => now);
    store.create(record('t1'));
    now = 61_000;
    expect(store.get('t1', 'alice')).toBeUndefined();
    expect(store.list('alice')?.tasks).toEqual([]);
  });

  it('fails a task whose owner stopped beating', () => {
    let now = 1_000;
    const store = new MemoryTaskStore(() => now);
    store.create(record('t1'));
    store.beat('instance-a', 5_000);
    now = 4_000;
    expect(store.get('t1', 'alice')?.status).toBe('working');
    now = 6_000;
    expect(store.get('t1', 'alice')).toMatchObject({ status: 'failed', error: { code: -32603 } });
  });
});
