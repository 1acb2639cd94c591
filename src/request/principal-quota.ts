/**
 * Per-principal quotas of long-lived things. The principal is the request's (the server's `principalOf(scope, auth)`):
 * the `principal` option, else the token's, else the scope's own `principal` string; '' is anonymous.
 */
import { ErrorCode } from '../protocol/errors.js';
import { BoundReached } from '../state/bounds.js';

/**
 * Places for long-lived streams: at most `max` in all and `perPrincipal` for any one named principal,
 * so one client cannot take them all. Anonymous streams count only against the total. One quota
 * serves every kind: 2026 listen streams, 2025 GET streams and 2025 `tasks/result` waits.
 */
export class PrincipalQuota {
  #open = 0;
  readonly #held = new Map<string, number>();

  constructor(
    readonly max: number,
    readonly perPrincipal: number,
  ) {}

  get open(): number {
    return this.#open;
  }

  /** Takes a place, or answers false when the total or the principal's share is used up. */
  acquire(principal: string): boolean {
    if (this.#open >= this.max) return false;
    if (principal !== '') {
      const held = this.#held.get(principal) ?? 0;
      if (held >= this.perPrincipal) return false;
      this.#held.set(principal, held + 1);
    }
    this.#open++;
    return true;
  }

  /** Takes a place and answers its release (a second call does nothing), or the 503 naming the full bound. */
  hold(principal: string): (() => void) | BoundReached {
    if (!this.acquire(principal)) {
      const mine = this.#open < this.max;
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
    this.#open--;
    if (principal === '') return;
    const held = (this.#held.get(principal) ?? 1) - 1;
    if (held > 0) this.#held.set(principal, held);
    else this.#held.delete(principal);
  }
}
