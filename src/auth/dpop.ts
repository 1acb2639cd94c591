/**
 * A DPoP proof (RFC 9449 §4.3) checked with jose: a JWT of type `dpop+jwt`, signed with an
 * asymmetric algorithm by the public key in its own `jwk` header, whose RFC 7638 thumbprint is the
 * one the access token is bound to (`cnf.jkt`); made for this request (`htm`, `htu` without query
 * and fragment), recently (`iat`), for this very token (`ath`), and with an id (`jti`) the replay
 * cache keeps. Nothing here is cached: every request brings a new proof.
 */
import { errors, jwtVerify } from 'jose';
import { toBase64url } from '../platform/base64url.js';
import { MAX_JTI_LENGTH } from '../state/proofs.js';
import { TokenRejected } from './jwt.js';
import type { ProofKeys } from './proof-keys.js';

export interface ProofSettings {
  readonly algorithms: readonly string[];
  /**
   * A proof's id is kept this many seconds from min(`iat`, arrival); the proof itself is accepted up
   * to `maxAgeSeconds − clockToleranceSeconds` after its `iat` (the skew allowed for a future `iat`
   * comes out of the age), so no replay outlives its kept id, whatever `iat` the client chose.
   */
  readonly maxAgeSeconds: number;
  /** A proof may be dated this many seconds ahead (clock skew); more than maxAgeSeconds would leave no window. */
  readonly clockToleranceSeconds: number;
}

/** What the proof must match: the request and the token it comes with. */
export interface ProofTarget {
  readonly method: string;
  /** The request URL, scheme, host and path (no query, no fragment). */
  readonly url: string;
  /** The access token's hash, as `ath` must be (accessTokenHash). */
  readonly ath: string;
  /** The token's `cnf.jkt`. */
  readonly jkt: string;
}

/** A checked proof: its id and until when (ms) it is kept, beyond the last moment a replay of it would pass the other checks. */
export interface CheckedProof {
  readonly jti: string;
  readonly until: number;
}

const encoder = new TextEncoder();

/** RFC 9449 §4.2: `ath` is the base64url SHA-256 of the access token's ASCII bytes. */
export async function accessTokenHash(token: string): Promise<string> {
  return toBase64url(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(token))));
}

/** RFC 9449 §4.3 item 9: the URI without query and fragment, normalized (case of scheme and host, default port). */
export function withoutQuery(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return `${url.origin}${url.pathname}`;
  } catch {
    return undefined;
  }
}

/** The checked proof; throws TokenRejected naming the first rule it breaks. */
export async function checkProof(proof: string, target: ProofTarget, settings: ProofSettings, keys: ProofKeys): Promise<CheckedProof> {
  let verified;
  try {
    // The key is the proof's own `jwk`, taken only when its thumbprint is the token's cnf.jkt (proof-keys.ts).
    verified = await jwtVerify(proof, keys.resolver(target.jkt), { typ: 'dpop+jwt', algorithms: [...settings.algorithms] });
  } catch (error) {
    if (error instanceof TokenRejected) throw error;
    throw new TokenRejected(`DPoP proof: ${error instanceof errors.JOSEError ? error.message : 'not a signed JWT'}`);
  }
  const { payload } = verified;
  if (payload.htm !== target.method) throw new TokenRejected('DPoP proof: htm is not the request method');
  if (typeof payload.htu !== 'string' || withoutQuery(payload.htu) !== target.url) throw new TokenRejected('DPoP proof: htu is not the request URL');
  const now = Date.now() / 1000;
  const iat = payload.iat;
  const { maxAgeSeconds, clockToleranceSeconds } = settings;
  // Accepted while now < iat + maxAge − tolerance ≤ min(iat, arrival) + maxAge: the id is kept at least that long.
  if (typeof iat !== 'number' || iat + maxAgeSeconds - clockToleranceSeconds <= now || iat > now + clockToleranceSeconds) {
    throw new TokenRejected('DPoP proof: iat is missing or outside the accepted window');
  }
  if (payload.ath !== target.ath) throw new TokenRejected('DPoP proof: ath is not the hash of the access token');
  const jti = payload.jti;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) throw new TokenRejected(`DPoP proof: jti is missing or longer than ${MAX_JTI_LENGTH}`);
  // From min(iat, now): a client dating its proof ahead cannot make its id stay longer.
  return { jti, until: Math.ceil((Math.min(iat, now) + maxAgeSeconds) * 1000) };
}
