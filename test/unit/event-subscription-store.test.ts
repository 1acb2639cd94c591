/**
 * The memory webhook subscription store: expired records leave (in time order) before a bound is
 * checked, a refreshed record lives to its new expiry, and subscribe/unsubscribe churn leaves the
 * counts exact. A clock is injected, so nothing waits.
 */
import { describe, expect, it } from 'vitest';
import { MemorySubscriptionStore, type SubscriptionRecord } from '../../src/state/event-subscriptions.js';

const record = (id: string, principal: string, expiresAt: number | null): SubscriptionRecord => ({
  id, principal, url: 'https://hooks.example/in', name: 'incident', args: {}, secrets: [{ secret: 'whsec_x' }], expiresAt,
});

describe('MemorySubscriptionStore', () => {
  it('an expired record frees its place under the per-principal and the total bound', () => {
    let now = 0;
    const store = new MemorySubscriptionStore(() => now);
    const bounds = { perPrincipal: 2, total: 3 };
    expect(store.put(record('a1', 'alice', 1_000), bounds)).toBe('stored');
    expect(store.put(record('a2', 'alice', 5_000), bounds)).toBe('stored');
    expect(store.put(record('a3', 'alice', 5_000), bounds)).toBe('principal');
    expect(store.put(record('b1', 'bob', null), bounds)).toBe('stored');
    expect(store.put(record('c1', 'carol', 5_000), bounds)).toBe('total');
    now = 1_000; // a1's time
    expect(store.put(record('c1', 'carol', 5_000), bounds)).toBe('stored');
    expect(store.put(record('a3', 'alice', 5_000), bounds)).toBe('total');
    now = 5_000;
    expect(store.put(record('a3', 'alice', 9_000), bounds)).toBe('stored');
    expect(store.get('a2')).toBeUndefined();
    expect(store.get('b1')?.expiresAt).toBeNull(); // no expiry: kept until deleted
  });

  it('a refreshed record lives to its new expiry, not its first', () => {
    let now = 0;
    const store = new MemorySubscriptionStore(() => now);
    const bounds = { perPrincipal: 10, total: 2 };
    store.put(record('r1', 'alice', 1_000), bounds);
    now = 500;
    store.put(record('r1', 'alice', 5_000), bounds); // the refresh
    store.put(record('r2', 'bob', 5_000), bounds);
    now = 2_000; // past r1's first expiry
    expect(store.put(record('r3', 'carol', 5_000), bounds)).toBe('total');
    expect(store.get('r1')?.expiresAt).toBe(5_000);
    now = 5_000;
    expect(store.put(record('r3', 'carol', 9_000), bounds)).toBe('stored');
    expect(store.ofType('incident').map((r) => r.id)).toEqual(['r3']);
  });

  it('subscribe and unsubscribe churn keeps the counts exact', () => {
    let now = 0;
    const store = new MemorySubscriptionStore(() => now);
    const bounds = { perPrincipal: 3, total: 5 };
    for (let i = 0; i < 10_000; i++) {
      expect(store.put(record('churn', 'mallory', 60_000 + i), bounds)).toBe('stored');
      expect(store.delete('churn')).toBe(true);
      now++;
    }
    for (const id of ['m1', 'm2', 'm3']) expect(store.put(record(id, 'mallory', now + 1_000), bounds)).toBe('stored');
    expect(store.put(record('m4', 'mallory', now + 1_000), bounds)).toBe('principal');
    now += 1_000;
    expect(store.put(record('m4', 'mallory', now + 1_000), bounds)).toBe('stored');
  });
});
