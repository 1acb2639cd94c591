/**
 * Per-principal rate limits: the store of token buckets (token-bucket.ts), one record per principal.
 * The memory default serves one process; minimcp/redis shares the buckets between instances, so a
 * principal's budget is the same whichever instance it reaches.
 */
import { refill, take, untilFull, type Bucket, type RateLimits } from './token-bucket.js';

/** The seam. `take` answers 0 when taken, else the milliseconds until the request would fit. */
export interface RateStore {
  /** Takes `requests` and `bytes` from `principal`'s buckets; `force` takes without refusing (may leave a debt). */
  take(principal: string, limits: RateLimits, requests: number, bytes: number, force?: boolean): number | Promise<number>;
}

/** Principals whose buckets the memory store keeps at once. */
export const DEFAULT_MAX_RATE_PRINCIPALS = 10_000;

/**
 * Buckets in a Map in least-recently-used order. A bucket that has refilled is the same as no bucket,
 * so idle principals are dropped as new ones come (two checked per newcomer) and cost nothing. The
 * table never holds more than `maxPrincipals`: past it the least recently used bucket goes even if
 * not yet full, which can only hand that principal a fresh burst, never refuse anyone else.
 */
export class MemoryRateStore implements RateStore {
  readonly #buckets = new Map<string, Bucket>();

  constructor(readonly maxPrincipals: number = DEFAULT_MAX_RATE_PRINCIPALS) {
    if (!Number.isInteger(maxPrincipals) || maxPrincipals < 1) throw new TypeError(`MemoryRateStore maxPrincipals must be a positive integer, got ${String(maxPrincipals)}`);
  }

  get size(): number {
    return this.#buckets.size;
  }

  take(principal: string, limits: RateLimits, requests: number, bytes: number, force = false, now = Date.now()): number {
    const buckets = this.#buckets;
    const kept = buckets.get(principal);
    if (kept === undefined) this.#makeRoom(limits, now);
    else buckets.delete(principal); // re-inserted below: the Map's order is the use order
    const bucket = refill(kept, limits, now);
    const wait = take(bucket, limits, requests, bytes, force);
    buckets.set(principal, bucket);
    return wait;
  }

  /** Before a newcomer: drops the two least recently used buckets if they refilled, and one more if still full. */
  #makeRoom(limits: RateLimits, now: number): void {
    const buckets = this.#buckets;
    let checked = 0;
    for (const [principal, bucket] of buckets) {
      if (checked++ === 2) break;
      if (now - bucket.at >= untilFull(bucket, limits)) buckets.delete(principal);
      else break;
    }
    if (buckets.size >= this.maxPrincipals) buckets.delete(buckets.keys().next().value!);
  }
}
