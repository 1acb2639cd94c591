/**
 * The answers of a resource server that refuses: 401 with a Bearer challenge pointing to the
 * metadata (RFC 9728 §5.1, RFC 6750 §3), 403 `insufficient_scope` naming the scopes to ask for,
 * 503 when the authorization server cannot be reached. Never the token or a claim in them.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { HeaderMap } from '../transports/http/exchange.js';

type Refusal = McpError & { headers: HeaderMap };

const refusal = (code: number, message: string, status: number, headers: HeaderMap): Refusal =>
  Object.assign(new McpError(code, message, undefined, status), { headers });

export class Challenges {
  constructor(
    private readonly metadataUrl: string,
    /** The scopes a client should ask for first (`scope=` of the 401). */
    private readonly scopes: readonly string[],
    /** The DPoP algorithms, when the `dpop` option is on: every 401 then offers the DPoP scheme too (RFC 9449 §7.1). */
    dpopAlgorithms?: readonly string[],
  ) {
    this.#algs = dpopAlgorithms === undefined ? undefined : `algs="${dpopAlgorithms.join(' ')}"`;
  }

  readonly #algs: string | undefined;

  #params(error: string | undefined, scopes: readonly string[]): string {
    const bearer = this.#bearer(error, scopes);
    return this.#algs === undefined ? bearer : `${bearer}, DPoP ${this.#algs}`;
  }

  #bearer(error: string | undefined, scopes: readonly string[]): string {
    const parts: string[] = [];
    if (error !== undefined) parts.push(`error="${error}"`);
    parts.push(`resource_metadata="${this.metadataUrl}"`);
    if (scopes.length > 0) parts.push(`scope="${scopes.join(' ')}"`);
    return `Bearer ${parts.join(', ')}`;
  }

  /** No credentials, or not a Bearer token: no error code (RFC 6750 §3.1). */
  missing(): Refusal {
    return refusal(ErrorCode.InvalidRequest, 'Unauthorized: a bearer token is required', 401, { 'www-authenticate': this.#params(undefined, this.scopes) });
  }

  /** A token that failed verification (signature, issuer, audience, expiry...). */
  invalid(): Refusal {
    return refusal(ErrorCode.InvalidRequest, 'Unauthorized: the token is invalid or expired', 401, { 'www-authenticate': this.#params('invalid_token', this.scopes) });
  }

  /** A DPoP-bound token without a valid proof (missing, wrong, replayed): RFC 9449 §7.1 `invalid_dpop_proof`. */
  invalidProof(): Refusal {
    return refusal(ErrorCode.InvalidRequest, 'Unauthorized: the DPoP proof is missing or invalid', 401, {
      'www-authenticate': `${this.#bearer(undefined, this.scopes)}, DPoP error="invalid_dpop_proof", ${this.#algs}`,
    });
  }

  /** The replay cache has no room for this caller's proof now; its ids leave within the proof age. */
  proofsFull(bound: string): Refusal {
    return refusal(ErrorCode.InternalError, `Service Unavailable: too many DPoP proofs kept (${bound}), retry later`, 503, { 'retry-after': '5' });
  }

  /** A token in the query string (OAuth 2.1 §5.1.1 forbids it; it ends up in logs and histories). */
  inQuery(): Refusal {
    return refusal(ErrorCode.InvalidRequest, 'Unauthorized: send the access token in the Authorization header, not in the URL', 401, {
      'www-authenticate': this.#params('invalid_request', this.scopes),
    });
  }

  /** The authorization server (metadata, JWKS, introspection) did not answer: not the client's fault. */
  unavailable(): Refusal {
    return refusal(ErrorCode.InternalError, 'Service Unavailable: the token could not be checked now, retry later', 503, { 'retry-after': '5' });
  }

  /** The cap on introspections per second was reached: try again in a second (the token may well be valid). */
  busy(): Refusal {
    return refusal(ErrorCode.InternalError, 'Service Unavailable: too many new tokens to check now, retry later', 503, { 'retry-after': '1' });
  }

  /** 403: the operation needs `needed`; the token's other relevant scopes are named too so a step-up keeps them. */
  insufficientScope(needed: readonly string[], granted: readonly string[]): HeaderMap {
    const scopes = [...new Set([...granted.filter((s) => this.scopes.includes(s)), ...needed])];
    return { 'www-authenticate': this.#params('insufficient_scope', scopes) };
  }
}
