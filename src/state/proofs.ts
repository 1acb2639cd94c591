/**
 * DPoP proof ids (`jti`, RFC 9449 §11.1) already seen, so a proof replayed while its `iat` is still
 * accepted is refused, on every instance when the state is shared. Keyed by the token's principal:
 * one caller's proofs can neither fill nor match another's. Bounded in count per principal and in
 * all, and in bytes through the length of a `jti` (at most MAX_JTI_LENGTH characters, the resource
 * server refuses longer ones); an id leaves when its proof would be too old to pass anyway.
 *
 * The total is shared fairly (proofShares): nothing is ever evicted (an evicted id could be
 * replayed), so room is kept instead. Every principal may keep its first `floor` ids while the store
 * has any room; past that, only while the store is below `maxTotalProofs − reserve` and the principal
 * holds less than its share of that (divided by the principals holding ids). A few busy principals
 * therefore fill at most the shared part, and a newcomer or a principal under its share still gets in.
 */
import { limitsOver } from '../option-checks.js';
import { ExpiryHeap } from './expiry-heap.js';
import { BoundsLedger } from './ledger.js';

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
  /** Proof ids kept in all. Default 100,000: about 28 MB of heap with 128-character ids (half the ids, half the index and expiry heap). */
  maxTotalProofs: number;
}

export const DEFAULT_PROOF_LIMITS: Readonly<ProofLimits> = { maxProofsPerPrincipal: 10_000, maxTotalProofs: 100_000 };

/** A longer `jti` is refused before it is kept: with the counts, this bounds the bytes. */
export const MAX_JTI_LENGTH = 128;

/** The limits with `given` over the defaults; a TypeError names a value that is not a positive integer. */
export function proofLimits(given: Partial<ProofLimits> = {}): ProofLimits {
  return limitsOver(DEFAULT_PROOF_LIMITS, given, 'Proof limit');
}

/** How the total is shared: half is kept for principals' first `floor` ids (1% of that half each). */
export interface ProofShares {
  /** Ids only a principal below its floor may take: `maxTotalProofs / 2` (50,000 by default). */
  readonly reserve: number;
  /** The ids every principal gets while any room is left: `reserve / 100` (500), at least 1, at most maxProofsPerPrincipal. */
  readonly floor: number;
}

export function proofShares(limits: ProofLimits): ProofShares {
  const reserve = Math.floor(limits.maxTotalProofs / 2);
  return { reserve, floor: Math.min(limits.maxProofsPerPrincipal, Math.max(1, Math.floor(reserve / 100))) };
}

/**
 * The bound that refuses one more id of a principal holding `mine` ids, while `kept` ids of
 * `holders` principals (it included when mine > 0) are kept; undefined when there is room.
 */
export function proofRefusal(mine: number, kept: number, holders: number, limits: ProofLimits, shares: ProofShares): ProofVerdict | undefined {
  if (mine >= limits.maxProofsPerPrincipal) return 'maxProofsPerPrincipal';
  if (kept >= limits.maxTotalProofs) return 'maxTotalProofs';
  if (mine < shares.floor) return undefined;
  const shared = limits.maxTotalProofs - shares.reserve;
  if (kept >= shared || mine >= Math.floor(shared / Math.max(1, holders))) return 'maxTotalProofs';
  return undefined;
}

interface KeptId {
  readonly until: number;
  readonly principal: string;
  readonly jti: string;
}

export class MemoryProofStore implements ProofStore {
  /** Per principal, its live ids (each the same entry the heap holds: one object per id). */
  readonly #kept = new Map<string, Map<string, KeptId>>();
  /** Every kept id, earliest leaving first: expiry is swept in order (a few steps per id, no walk). */
  readonly #leaving = new ExpiryHeap<KeptId>();
  /** Ids and their characters, per principal (every key one, as in `#kept`) and in all: what the bounds read. */
  readonly #ledger = new BoundsLedger(true);
  readonly #limits: ProofLimits;
  readonly #shares: ProofShares;

  constructor(limits: Partial<ProofLimits> = {}) {
    this.#limits = proofLimits(limits);
    this.#shares = proofShares(this.#limits);
  }

  get size(): number {
    return this.#leaving.size;
  }

  remember(principal: string, jti: string, until: number, now = Date.now()): ProofVerdict {
    this.#expire(now);
    const mine = this.#kept.get(principal);
    if (mine?.has(jti)) return 'replayed';
    const ledger = this.#ledger;
    const refused = proofRefusal(ledger.of(principal).count, ledger.total.count, ledger.principals, this.#limits, this.#shares);
    if (refused !== undefined) return refused;
    const entry: KeptId = { until, principal, jti };
    if (mine === undefined) this.#kept.set(principal, new Map([[jti, entry]]));
    else mine.set(jti, entry);
    this.#leaving.push(entry);
    ledger.add(principal, 1, jti.length);
    return 'fresh';
  }

  /** Ids whose time has come (`until` ≤ now) leave, earliest first. */
  #expire(now: number): void {
    for (let due = this.#leaving.popDue(now); due !== undefined; due = this.#leaving.popDue(now)) {
      const ids = this.#kept.get(due.principal);
      if (ids === undefined) continue;
      if (ids.delete(due.jti)) this.#ledger.add(due.principal, -1, -due.jti.length);
      if (ids.size === 0) this.#kept.delete(due.principal);
    }
  }
}
