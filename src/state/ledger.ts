/**
 * The one ledger of what clients make the server keep: per named principal and in all, a count of
 * things and their size (what the size counts — characters, UTF-8 bytes — is the store's unit,
 * named by its options). Anonymous ('') has no share of its own and counts only in the total,
 * except in a ledger made with `anonymousIsOne` (the task and webhook subscription stores' rule: anonymous callers share one
 * principal's share).
 * The Redis scripts keep the same shape under the same names (src/redis/ledger-lua.ts: hashes of a
 * count and a size per principal and in all; sorted sets for ids that leave by time alone).
 * No node: imports: the fetch handler uses it too.
 */
import type { Usage } from './bounds.js';

const NONE: Usage = Object.freeze({ count: 0, size: 0 });

export class BoundsLedger {
  readonly #principals = new Map<string, Usage>();
  readonly #total: Usage = { count: 0, size: 0 };

  constructor(private readonly anonymousIsOne = false) {}

  /** What all principals keep (anonymous included). */
  get total(): Readonly<Usage> {
    return this.#total;
  }

  /** What one named principal keeps (nothing for anonymous: it has no share). */
  of(principal: string): Readonly<Usage> {
    return principal === '' && !this.anonymousIsOne ? NONE : (this.#principals.get(principal) ?? NONE);
  }

  /** Counts `count` more things of `size` more (negative to give back); a principal at zero is forgotten. */
  add(principal: string, count: number, size: number): void {
    this.#total.count += count;
    this.#total.size += size;
    if (principal === '' && !this.anonymousIsOne) return;
    const usage = this.#principals.get(principal);
    if (usage === undefined) {
      if (count !== 0 || size !== 0) this.#principals.set(principal, { count, size });
      return;
    }
    usage.count += count;
    usage.size += size;
    if (usage.count === 0 && usage.size === 0) this.#principals.delete(principal);
  }

  /** Named principals with anything kept. */
  get principals(): number {
    return this.#principals.size;
  }
}
