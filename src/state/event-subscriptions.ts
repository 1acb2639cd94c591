/**
 * Webhook subscription records: what `events/subscribe` keeps per key (principal, url, name,
 * canonical arguments), by the id derived from it. Bounded per principal and in all; a record past its
 * TTL is gone (read as absent, swept on the next write). In memory by default; the interface is small
 * so a shared store can stand in.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { MaybePromise } from '../protocol/mcp-types.js';
import { ExpiryHeap } from './expiry-heap.js';
import { BoundsLedger } from './ledger.js';

export interface SubscriptionRecord {
  readonly id: string;
  readonly principal: string;
  readonly url: string;
  readonly name: string;
  readonly args: JsonObject;
  /** Newest first; an older one signs until its `until` (rotation grace). */
  readonly secrets: readonly { secret: string; until?: number }[];
  /** Milliseconds since the epoch; null: no expiry (granted only by a durable store). */
  readonly expiresAt: number | null;
}

export interface SubscriptionBounds {
  readonly perPrincipal: number;
  readonly total: number;
}

/** What `put` did: stored, or which bound refused a new record (a refresh is never refused). */
export type PutOutcome = 'stored' | 'principal' | 'total';

export interface SubscriptionStore {
  /** Records survive restarts (a shared store): subscriptions without expiry may be granted. */
  readonly durable?: boolean;
  get(id: string): MaybePromise<SubscriptionRecord | undefined>;
  put(record: SubscriptionRecord, bounds: SubscriptionBounds): MaybePromise<PutOutcome>;
  delete(id: string): MaybePromise<boolean>;
  /** The live records of an event type (the fan-out of one occurrence). */
  ofType(name: string): MaybePromise<readonly SubscriptionRecord[]>;
}

export class MemorySubscriptionStore implements SubscriptionStore {
  readonly #records = new Map<string, SubscriptionRecord>();
  readonly #byType = new Map<string, Set<string>>();
  /** Records kept, per principal and in all (anonymous counts as one principal, as on Redis). */
  readonly #ledger = new BoundsLedger(true);
  /**
   * Records with an expiry, earliest first, so expired ones leave in time order and never by a walk.
   * A replaced or deleted record's entry is skipped when it comes out; the heap is rebuilt from the
   * live records once such entries outnumber them, so churn cannot grow it.
   */
  #expiring = new ExpiryHeap<{ readonly until: number; readonly record: SubscriptionRecord }>();

  constructor(private readonly now: () => number = Date.now) {}

  get(id: string): SubscriptionRecord | undefined {
    const record = this.#records.get(id);
    if (record === undefined || record.expiresAt === null || record.expiresAt > this.now()) return record;
    this.delete(id);
    return undefined;
  }

  put(record: SubscriptionRecord, bounds: SubscriptionBounds): PutOutcome {
    if (!this.#records.has(record.id)) {
      this.#sweep();
      if (this.#ledger.of(record.principal).count >= bounds.perPrincipal) return 'principal';
      if (this.#ledger.total.count >= bounds.total) return 'total';
      this.#ledger.add(record.principal, 1, 0);
      let ids = this.#byType.get(record.name);
      if (ids === undefined) this.#byType.set(record.name, (ids = new Set()));
      ids.add(record.id);
    }
    this.#records.set(record.id, record);
    if (record.expiresAt !== null) this.#track(record, record.expiresAt);
    return 'stored';
  }

  delete(id: string): boolean {
    const record = this.#records.get(id);
    if (record === undefined) return false;
    this.#records.delete(id);
    this.#byType.get(record.name)?.delete(id);
    this.#ledger.add(record.principal, -1, 0);
    return true;
  }

  ofType(name: string): SubscriptionRecord[] {
    const out: SubscriptionRecord[] = [];
    for (const id of this.#byType.get(name) ?? []) {
      const record = this.get(id);
      if (record !== undefined) out.push(record);
    }
    return out;
  }

  #track(record: SubscriptionRecord, until: number): void {
    this.#expiring.push({ until, record });
    if (this.#expiring.size <= 2 * this.#records.size + 64) return;
    const live = new ExpiryHeap<{ readonly until: number; readonly record: SubscriptionRecord }>();
    for (const kept of this.#records.values()) if (kept.expiresAt !== null) live.push({ until: kept.expiresAt, record: kept });
    this.#expiring = live;
  }

  /** Expired records leave before a bound is checked: they hold no place. */
  #sweep(): void {
    const now = this.now();
    for (let due = this.#expiring.popDue(now); due !== undefined; due = this.#expiring.popDue(now)) {
      if (this.#records.get(due.record.id) === due.record) this.delete(due.record.id);
    }
  }
}
