/**
 * What the handlers of one principal may write into resumable streams whose response has ended (the
 * client left, or `ctx.closeStream()`): those events only wait in the replay store for a resume that
 * may never come, yet each costs a serialization. A client that opens streams and drops them at once
 * had its handlers stringify 512 KiB progress events by the hundred (half the server's time in the
 * soak's `replay` attack). So, per principal and process, a byte budget (`storedEventCharsPerSecond`,
 * a burst of eight seconds' worth, as much as the replay store keeps of one principal by default);
 * past it, notifications (progress, logs) for such streams are dropped before they are serialized.
 * Replies and server requests are always kept: a resuming client still gets its answer.
 */
import { MemoryRateStore } from '../../state/rates.js';
import type { RateLimits } from '../../state/token-bucket.js';

export class StoredEventBudget {
  readonly #buckets = new MemoryRateStore();
  /** The bucket arithmetic of the rate limits, with the bytes bucket only (requests are never taken). */
  readonly #limits: RateLimits;

  constructor(bytesPerSecond: number) {
    this.#limits = { requestsPerSecond: 1, requestBurst: 1, requestBytesPerSecond: bytesPerSecond, requestBytesBurst: 8 * bytesPerSecond };
  }

  /** The principal's budget is spent: a notification for a stream whose response ended is dropped. */
  spent(principal: string): boolean {
    return this.#buckets.take(principal, this.#limits, 0, 0) > 0;
  }

  /** Counts an event written for such a stream (never refused: a debt the next ones wait out). */
  charge(principal: string, characters: number): void {
    this.#buckets.take(principal, this.#limits, 0, characters, true);
  }
}
