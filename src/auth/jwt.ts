/**
 * JWT access tokens (RFC 9068 and plain JWTs) checked with jose: signature by a key of the issuer's
 * JWKS, `iss`, `aud`, `exp`/`nbf`/`iat` within a small clock tolerance, and an asymmetric algorithm
 * from an allow-list (never `none`, never HMAC, whose secret a public JWKS cannot hold). The JWKS is
 * found through the issuer's metadata, cached by jose, and fetched again for an unknown `kid` at
 * most once per `jwksRefreshIntervalMs`.
 */
import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, jwtVerify, type JSONWebKeySet, type JWK, type JWTPayload } from 'jose';
import { discoverIssuer, type Fetch } from './discovery.js';

export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

export interface JwtSettings {
  readonly issuer: string;
  readonly audience: readonly string[];
  readonly algorithms: readonly string[];
  readonly clockToleranceSeconds: number;
  readonly jwksUri: string | undefined;
  readonly jwks: { keys: JWK[] } | undefined;
  readonly jwksRefreshIntervalMs: number;
  readonly timeoutMs: number;
  readonly fetch: Fetch;
}

/** Why a token was refused: the client's fault (401) or the authorization server's (503). */
export class TokenRejected extends Error {}
export class IssuerUnavailable extends Error {}

type KeySet = ReturnType<typeof createRemoteJWKSet> | ReturnType<typeof createLocalJWKSet>;

/** After a failed discovery, requests fail fast for this long instead of each asking again. */
const DISCOVERY_RETRY_MS = 5_000;

export class JwtVerifier {
  #keys: Promise<KeySet> | undefined;
  #failedAt = 0;

  constructor(private readonly settings: JwtSettings) {
    for (const alg of settings.algorithms) {
      if (!ASYMMETRIC_ALGORITHMS.includes(alg)) {
        throw new TypeError(`oauthResourceServer: algorithm ${alg} is not allowed (only asymmetric ones: ${ASYMMETRIC_ALGORITHMS.join(', ')})`);
      }
    }
  }

  /** The verified claims; throws TokenRejected or IssuerUnavailable. */
  async verify(token: string): Promise<JWTPayload> {
    const keys = await this.#keySet();
    const { settings } = this;
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: settings.issuer,
        audience: [...settings.audience],
        algorithms: [...settings.algorithms],
        clockTolerance: settings.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub'],
      });
      // jose checks that iat is a number; a token issued in the future is refused too.
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + settings.clockToleranceSeconds) {
        throw new TokenRejected('the token was issued in the future (iat)');
      }
      return payload;
    } catch (error) {
      if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) throw new IssuerUnavailable(`JWKS: ${error.message}`);
      if (error instanceof errors.JOSEError || error instanceof TokenRejected) throw new TokenRejected(error.message);
      throw new IssuerUnavailable(`JWKS: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  #keySet(): Promise<KeySet> {
    if (this.#keys !== undefined) return this.#keys;
    if (this.settings.jwks !== undefined) return (this.#keys = Promise.resolve(createLocalJWKSet(this.settings.jwks as JSONWebKeySet)));
    if (Date.now() - this.#failedAt < DISCOVERY_RETRY_MS) return Promise.reject(new IssuerUnavailable('the issuer metadata could not be read (retrying soon)'));
    const { settings } = this;
    const found = settings.jwksUri !== undefined
      ? Promise.resolve(settings.jwksUri)
      : discoverIssuer(settings.issuer, settings.fetch, settings.timeoutMs).then((metadata) => {
        if (typeof metadata.jwks_uri !== 'string') throw new Error(`The issuer ${settings.issuer} publishes no jwks_uri`);
        return metadata.jwks_uri;
      });
    this.#keys = found.then(
      (uri) => createRemoteJWKSet(new URL(uri), {
        cooldownDuration: settings.jwksRefreshIntervalMs,
        timeoutDuration: settings.timeoutMs,
        [customFetch]: (url, init) => settings.fetch(url, init),
      }),
      (error: unknown) => {
        this.#keys = undefined;
        this.#failedAt = Date.now();
        throw new IssuerUnavailable(`discovery: ${(error as Error)?.message ?? String(error)}`);
      },
    );
    return this.#keys;
  }
}
