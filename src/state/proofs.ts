/**
 * DPoP proof ids (`jti`, RFC 9449 §11.1) already seen, so a proof replayed while its `iat` is still
 * accepted is refused, on every instance when the state is shared. Keyed by the token's principal:
 * one caller's proofs can neither fill nor match another's. Bounded in count per principal and in
 * all, and in bytes through the length of a `jti` (at most MAX_JTI_LENGTH characters, the resource
 * server refuses longer ones); an id leaves when its proof would be too old to pass anyway.
 */

/** What `remember` found: a new id, a replay, or the bound that had no room for it. */
export type ProofVerdict = 'fresh' | 'replayed' | 'maxProofsPerPrincipal' | 'maxTotalProofs';

/** The seam: the memory default serves one process; minimcp/redis shares it between instances. */
export interface ProofStore {
  /** Keeps `jti` of `principal` until `until` (ms since the epoch), unless it is already kept or a bound is reached. */
  remember(principal: string, jti: string, until: number): ProofVerdict | Promise<ProofVerdict>;
}

export interface ProofLimits {
  /** Proof ids kept for one principal (one per request within the proof age). Default 10,000. */
  maxProofsPerPrincipal: number;
  /** Proof ids kept in all (memory store only). Default 100,000: at most about 30 MB. */
  maxTotalProofs: number;
}

export const DEFAULT_PROOF_LIMITS: Readonly<ProofLimits> = { maxProofsPerPrincipal: 10_000, maxTotalProofs: 100_000 };

/** A longer `jti` is refused before it is kept: with the counts, this bounds the bytes. */
export const MAX_JTI_LENGTH = 128;

/** The limits with `given` over the defaults; a TypeError names a value that is not a positive integer. */
export function proofLimits(given: Partial<ProofLimits> = {}): ProofLimits {
  const limits = { ...DEFAULT_PROOF_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new TypeError(`Proof limit ${name} must be a positive integer, got ${String(value)}`);
  }
  return limits;
}

interface Kept {
  readonly principal: string;
  readonly until: number;
}

export class MemoryProofStore implements ProofStore {
  /** Insertion order is nearly expiry order (every `until` is `iat` + one fixed age), so expired ids are swept from the front. */
  readonly #kept = new Map<string, Kept>();
  readonly #perPrincipal = new Map<string, number>();
  readonly #limits: ProofLimits;

  constructor(limits: Partial<ProofLimits> = {}) {
    this.#limits = proofLimits(limits);
  }

  get size(): number {
    return this.#kept.size;
  }

  remember(principal: string, jti: string, until: number, now = Date.now()): ProofVerdict {
    // Length-prefixed, so no principal can be made to run into the jti.
    const key = `${principal.length}:${principal}${jti}`;
    const seen = this.#kept.get(key);
    if (seen !== undefined && seen.until > now) return 'replayed';
    this.#sweep(now, false);
    let full = this.#full(principal);
    if (full !== undefined) {
      this.#sweep(now, true);
      full = this.#full(principal);
      if (full !== undefined) return full;
    }
    this.#forget(key);
    this.#kept.set(key, { principal, until });
    this.#perPrincipal.set(principal, (this.#perPrincipal.get(principal) ?? 0) + 1);
    return 'fresh';
  }

  #full(principal: string): ProofVerdict | undefined {
    if ((this.#perPrincipal.get(principal) ?? 0) >= this.#limits.maxProofsPerPrincipal) return 'maxProofsPerPrincipal';
    if (this.#kept.size >= this.#limits.maxTotalProofs) return 'maxTotalProofs';
    return undefined;
  }

  /** Drops expired ids: from the front until a live one, or (`all`) everywhere, when a bound is reached. */
  #sweep(now: number, all: boolean): void {
    for (const [key, kept] of this.#kept) {
      if (kept.until <= now) this.#forget(key);
      else if (!all) return;
    }
  }

  #forget(key: string): void {
    const kept = this.#kept.get(key);
    if (kept === undefined) return;
    this.#kept.delete(key);
    const left = this.#perPrincipal.get(kept.principal)! - 1;
    if (left === 0) this.#perPrincipal.delete(kept.principal);
    else this.#perPrincipal.set(kept.principal, left);
  }
}
