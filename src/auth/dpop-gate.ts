/**
 * The DPoP side of the resource server (RFC 9449 §7): a token bound to a key (`cnf.jkt`) passes only
 * with the `DPoP` scheme and a proof made by that key for this request, whose `jti` is new to the
 * shared replay cache (`state.proofs`, keyed by the token's principal). Plain Bearer requests never
 * come here: their path does no work for DPoP.
 */
import type { AuthInfo } from '../protocol/auth-info.js';
import { MemoryProofStore, type ProofStore } from '../state/proofs.js';
import type { AuthRequest } from '../transports/http/auth-gate.js';
import type { Challenges } from './challenges.js';
import { accessTokenHash, checkProof, withoutQuery, type CheckedProof } from './dpop.js';
import type { DpopSettings } from './options.js';
import { ProofKeys } from './proof-keys.js';

/** A longer proof is refused unread (a proof is a small JWT with one public key in its header). */
const MAX_PROOF_LENGTH = 8192;

/** The key a token is bound to, or undefined for a plain bearer token. */
export function boundKey(auth: AuthInfo): string | undefined {
  const cnf = auth.claims.cnf as { jkt?: unknown } | undefined;
  return typeof cnf?.jkt === 'string' ? cnf.jkt : undefined;
}

export class DpopGate {
  /** Used when the caller passes no shared state (the HTTP entries always pass theirs). */
  #ownProofs: ProofStore | undefined;
  readonly #keys = new ProofKeys();
  /** Each verified token's `ath`, computed once: it lives as long as the token's cache entry. */
  readonly #hashes = new WeakMap<AuthInfo, string>();

  constructor(
    private readonly settings: DpopSettings,
    /** The resource's origin: `htu` is compared with it and the request path, as the client addressed it (behind a proxy too). */
    private readonly origin: string,
    private readonly challenges: Challenges,
    private readonly onRejected: (reason: string) => void,
  ) {}

  /** The caller's facts once the proof checks out; throws a 401 `invalid_dpop_proof`, or a 503. */
  async admit(auth: AuthInfo, token: string, request: AuthRequest, proofs: ProofStore | undefined): Promise<AuthInfo> {
    const jkt = boundKey(auth);
    if (jkt === undefined) throw this.#refuse('an unbound token came with the DPoP scheme');
    const proof = request.get('dpop');
    if (proof === undefined || proof.length > MAX_PROOF_LENGTH) throw this.#refuse('no DPoP proof header (or a too long one)');
    let checked: CheckedProof;
    try {
      const url = withoutQuery(`${this.origin}${request.target()}`) ?? '';
      let ath = this.#hashes.get(auth);
      if (ath === undefined) this.#hashes.set(auth, (ath = await accessTokenHash(token)));
      checked = await checkProof(proof, { method: request.method ?? '', url, ath, jkt }, this.settings, this.#keys);
    } catch (error) {
      throw this.#refuse((error as Error).message);
    }
    const store = proofs ?? (this.#ownProofs ??= new MemoryProofStore());
    let verdict;
    try {
      verdict = await store.remember(auth.principal, checked.jti, checked.until);
    } catch (error) {
      this.onRejected(`DPoP replay cache: ${(error as Error)?.message ?? String(error)}`);
      throw this.challenges.unavailable();
    }
    if (verdict === 'replayed') throw this.#refuse('DPoP proof: its jti was seen before (a replay)');
    if (verdict !== 'fresh') {
      this.onRejected(`DPoP replay cache: ${verdict} reached`);
      throw this.challenges.proofsFull(verdict);
    }
    return auth;
  }

  #refuse(reason: string): Error {
    this.onRejected(reason);
    return this.challenges.invalidProof();
  }
}
