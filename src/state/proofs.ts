/**
 * DPoP proof ids (`jti`, RFC 9449 §11.1) already seen, so a proof replayed while its `iat` is still
 * accepted is refused, on every instance when the state is shared. Keyed by the token's principal:
 * one caller's proofs can neither fill nor match another's. Bounded in count per principal and in
 * all, and in bytes through the length of a `jti` (at most MAX_JTI_LENGTH characters, the resource
 * server refuses longer ones); an id leaves when its proof would be too old to pass anyway.
 */
import { limitsOver } from '../option-checks.js';

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
  /** Proof ids kept in all (memory store only). Default 100,000: about 37 MB of heap with 128-character ids. */
  maxTotalProofs: number;
}

export const DEFAULT_PROOF_LIMITS: Readonly<ProofLimits> = { maxProofsPerPrincipal: 10_000, maxTotalProofs: 100_000 };

/** A longer `jti` is refused before it is kept: with the counts, this bounds the bytes. */
export const MAX_JTI_LENGTH = 128;

/** The limits with `given` over the defaults; a TypeError names a value that is not a positive integer. */
export function proofLimits(given: Partial<ProofLimits> = {}): ProofLimits {
  return limitsOver(DEFAULT_PROOF_LIMITS, given, 'Proof limit');
}

export class MemoryProofStore implements ProofStore {
  /**
   * Per principal, its ids and until when each is kept. Insertion order is nearly expiry order (every
   * `until` is `iat` + one fixed age), so expired ids are swept from the front of a principal's map.
   */
  readonly #kept = new Map<string, Map<string, number>>();
  #total = 0;
  readonly #limits: ProofLimits;

  constructor(limits: Partial<ProofLimits> = {}) {
    this.#limits = proofLimits(limits);
  }

  get size(): number {
    return this.#total;
  }

  remember(principal: string, jti: string, until: number, now = Date.now()): ProofVerdict {
    let mine = this.#kept.get(principal);
    const seen = mine?.get(jti);
    if (seen !== undefined && seen > now) return 'replayed';
    if (mine !== undefined) this.#sweep(mine, now, false);
    let full = this.#full(mine);
    if (full !== undefined) {
      for (const [who, ids] of this.#kept) if (this.#sweep(ids, now, true) === 0) this.#kept.delete(who);
      full = this.#full(mine);
      if (full !== undefined) return full;
    }
    if (mine === undefined || !this.#kept.has(principal)) this.#kept.set(principal, (mine = new Map()));
    if (mine.delete(jti)) this.#total--;
    mine.set(jti, until);
    this.#total++;
    return 'fresh';
  }

  #full(mine: Map<string, number> | undefined): ProofVerdict | undefined {
    if ((mine?.size ?? 0) >= this.#limits.maxProofsPerPrincipal) return 'maxProofsPerPrincipal';
    if (this.#total >= this.#limits.maxTotalProofs) return 'maxTotalProofs';
    return undefined;
  }

  /** Drops expired ids: from the front until a live one, or (`all`) everywhere, when a bound is reached. */
  #sweep(ids: Map<string, number>, now: number, all: boolean): number {
    for (const [jti, until] of ids) {
      if (until <= now) {
        ids.delete(jti);
        this.#total--;
      } else if (!all) break;
    }
    return ids.size;
  }
}
