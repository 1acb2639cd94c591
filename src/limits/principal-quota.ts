/**
 * Per-principal quotas of long-lived things. The principal is the request's (the server's `principalOf(scope, auth)`):
 * the `principal` option, else the token's, else the scope's own `principal` string; '' is anonymous.
 */
import { ErrorCode } from '../protocol/errors.js';
import { BoundReached } from '../state/bounds.js';
import { BoundsLedger } from '../state/ledger.js';

/**
 * Places for long-lived streams: at most `max` in all and `perPrincipal` for any one named principal,
 * so one client cannot take them all. Anonymous streams count only against the total. One quota
 * serves every kind: 2026 listen streams, 2025 GET streams and 2025 `tasks/result` waits.
 */
export class PrincipalQuota {
  /** Places held, per principal and in all (counts only: a place has no size). */
  readonly #ledger = new BoundsLedger();

  constructor(
    readonly max: number,
    readonly perPrincipal: number,
  ) {}

  get open(): number {
    return this.#ledger.total.count;
  }

  /** Takes a place, or answers false when the total or the principal's share is used up. */
  acquire(principal: string): boolean {
    if (this.#ledger.total.count >= this.max) return false;
    if (principal !== '' && this.#ledger.of(principal).count >= this.perPrincipal) return false;
    this.#ledger.add(principal, 1, 0);
    return true;
  }

  /** Takes a place and answers its release (a second call does nothing), or the 503 naming the full bound. */
  hold(principal: string): (() => void) | BoundReached {
    if (!this.acquire(principal)) {
      const mine = this.#ledger.total.count < this.max;
      const [bound, max, who] = mine ? ['maxStreamsPerPrincipal', this.perPrincipal, 'one client'] : ['maxStreams', this.max, 'the server'];
      return new BoundReached(bound as string, principal, `Server overloaded: ${who} may hold at most ${max} open streams (${bound}), retry later`, ErrorCode.InternalError, 503);
    }
    let held = true;
    return () => {
      if (held) this.release(principal);
      held = false;
    };
  }

  release(principal: string): void {
    this.#ledger.add(principal, -1, 0);
  }
}
