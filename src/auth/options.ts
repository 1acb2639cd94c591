/** The options of `oauthResourceServer()`, checked once into settings. */
import { intOption } from '../option-checks.js';
import type { AuthRequest } from '../transports/http/auth-gate.js';
import { ASYMMETRIC_ALGORITHMS, type JwtSettings } from './jwt.js';
import type { JWK } from 'jose';
import type { Fetch } from './discovery.js';
import type { IntrospectionOptions } from './introspection.js';
import type { ProofSettings } from './dpop.js';

export interface ResourceServerOptions {
  /**
   * This server's canonical resource URI, as clients name it (RFC 8707), e.g.
   * `https://mcp.example.com/mcp`: the default audience, the PRM `resource`, and where the metadata
   * paths come from. No fragment.
   */
  resource: string;
  /** The authorization server's issuer identifier (exactly as its tokens' `iss`). */
  issuer: string;
  /**
   * Audiences a token may name, any one of them (default: `resource`). Add your provider's form when
   * it differs (Entra ID v1 tokens: `api://<app id>`; v2: the app's client id).
   */
  audience?: string | string[];
  /** Allowed signature algorithms. Default: RS256/384/512, PS256/384/512, ES256/384/512, EdDSA. HMAC and `none` are refused. */
  algorithms?: string[];
  /** Seconds of clock skew allowed for `exp`, `nbf` and `iat`. Default 5. */
  clockToleranceSeconds?: number;
  /** The JWKS URL; default: found in the issuer's RFC 8414 (or OpenID) metadata. */
  jwksUri?: string;
  /** The issuer's public keys themselves (pinned keys, or a runtime that cannot fetch): no discovery, no fetch. */
  jwks?: { keys: JWK[] };
  /** A token with an unknown `kid` fetches the JWKS again at most this often. Default 30 s. */
  jwksRefreshIntervalMs?: number;
  /** Timeout of each request to the authorization server (metadata, JWKS). Default 5 s. */
  timeoutMs?: number;
  /**
   * Your own verifier instead of JWT checks (opaque tokens, another format): the token's claims,
   * which must include `iss`, `sub` and, to be cached, `exp`. Throw to refuse the token (401).
   */
  verify?: (token: string, request: AuthRequest) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /**
   * Opaque tokens (anything that is not a JWT) are asked about at the issuer's introspection endpoint
   * (RFC 7662), with this server's own client credentials. The answer is cached like a verified JWT:
   * never past its `exp`, at most `cacheTtlMs`, so a revocation takes effect within that time.
   */
  introspection?: IntrospectionOptions;
  /**
   * Read the token from this request header instead of `Authorization: Bearer` (lower case). For a
   * proxy that authenticates at the edge and forwards its own JWT: Cloudflare Access sends
   * `cf-access-jwt-assertion`.
   */
  tokenHeader?: string;
  /** Scopes clients should ask for first: `scopes_supported` in the metadata and `scope=` in the 401 challenge. */
  scopes?: string[];
  /** Human-readable name in the metadata (`resource_name`). */
  resourceName?: string;
  /** A page for developers (`resource_documentation`). */
  documentation?: string;
  /** Verified tokens kept so a token seen again costs no signature check. Default 1000; 0 turns the cache off. */
  cacheSize?: number;
  /** A cached verification is used at most this long (and never past the token's `exp`). Default 5 min. */
  cacheTtlMs?: number;
  /** Put the raw token in `ctx.auth.token`. Off by default: a server must never pass it on (no token passthrough). */
  exposeToken?: boolean;
  /**
   * DPoP (RFC 9449), sender-constrained tokens. With it on, a token bound to a key (`cnf.jkt`) must
   * come as `Authorization: DPoP <token>` with a valid `DPoP` proof signed by that key, whose `jti`
   * is kept in the server's shared state (`state.proofs`) so a replay is refused on every instance.
   * `'allowed'`: plain Bearer tokens are accepted too; `'required'`: only DPoP-bound tokens are.
   * Default off: a DPoP-bound token is then refused, since its binding could not be checked.
   */
  dpop?: 'allowed' | 'required';
  /**
   * A DPoP proof's id is kept this many seconds from min(`iat`, arrival); the proof is accepted up to
   * `dpopMaxAgeSeconds − clockToleranceSeconds` after its `iat` and `clockToleranceSeconds` before it,
   * so a proof dated ahead lives no longer than one dated now. Default 60; more than clockToleranceSeconds.
   */
  dpopMaxAgeSeconds?: number;
  /** Algorithms a DPoP proof may be signed with (`dpop_signing_alg_values_supported`). Default: those of `algorithms`' default (asymmetric only). */
  dpopAlgorithms?: string[];
  /** Called with the reason a token was refused (it is never sent to the client). Default: nothing. */
  onRejected?: (reason: string) => void;
  /** fetch for the metadata and JWKS requests (tests, proxies). Default: globalThis.fetch. */
  fetch?: Fetch;
}

/** The JWT checks' settings plus the resource server's own. */
export interface ResourceServerSettings extends JwtSettings {
  readonly resource: string;
  readonly scopes: readonly string[];
  readonly cacheSize: number;
  readonly cacheTtlMs: number;
  readonly exposeToken: boolean;
  readonly tokenHeader: string | undefined;
  /** Undefined when the `dpop` option is off. */
  readonly dpop: DpopSettings | undefined;
}

export interface DpopSettings extends ProofSettings {
  readonly required: boolean;
}

function absoluteUrl(name: string, value: unknown): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new TypeError(`oauthResourceServer option ${name} must be an absolute URL, got ${String(value)}`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash !== '') {
    throw new TypeError(`oauthResourceServer option ${name} must be an http(s) URL without a fragment, got ${String(value)}`);
  }
  return String(value);
}

const OWNER = 'oauthResourceServer option';

function list(name: string, value: unknown, fallback: readonly string[]): readonly string[] {
  if (value === undefined) return fallback;
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items) || !items.every((item) => typeof item === 'string' && item !== '' && !/[\s"\\]/.test(item))) {
    throw new TypeError(`oauthResourceServer option ${name} must be a list of non-empty strings without spaces or quotes`);
  }
  return Object.freeze([...items]);
}

function jwksOf(value: unknown): { keys: JWK[] } | undefined {
  if (value === undefined) return undefined;
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'object' && k !== null && !('d' in k) && (k as JWK).kty !== 'oct')) {
    throw new TypeError('oauthResourceServer option jwks must be { keys: [...] } of public keys (no private or symmetric keys)');
  }
  return { keys: keys as JWK[] };
}

function tokenHeaderOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[a-z0-9-]+$/.test(value)) throw new TypeError('oauthResourceServer option tokenHeader must be a lower-case header name');
  return value;
}

function dpopOf(options: ResourceServerOptions, clockToleranceSeconds: number): DpopSettings | undefined {
  const mode = options.dpop;
  if (mode === undefined) {
    if (options.dpopMaxAgeSeconds !== undefined || options.dpopAlgorithms !== undefined) throw new TypeError(`${OWNER}s dpopMaxAgeSeconds and dpopAlgorithms need dpop: 'allowed' or 'required'`);
    return undefined;
  }
  if (mode !== 'allowed' && mode !== 'required') throw new TypeError(`${OWNER} dpop must be 'allowed' or 'required', got ${String(mode)}`);
  const algorithms = list('dpopAlgorithms', options.dpopAlgorithms, ASYMMETRIC_ALGORITHMS);
  for (const alg of algorithms) {
    if (!ASYMMETRIC_ALGORITHMS.includes(alg)) throw new TypeError(`${OWNER} dpopAlgorithms: ${alg} is not allowed (only asymmetric ones: ${ASYMMETRIC_ALGORITHMS.join(', ')})`);
  }
  const maxAgeSeconds = intOption(options, 'dpopMaxAgeSeconds', 60, { owner: OWNER, min: 1 });
  if (maxAgeSeconds <= clockToleranceSeconds) throw new TypeError(`${OWNER} dpopMaxAgeSeconds must be greater than clockToleranceSeconds (${clockToleranceSeconds})`);
  return { required: mode === 'required', algorithms, maxAgeSeconds, clockToleranceSeconds };
}

export function resolveOptions(options: ResourceServerOptions): ResourceServerSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError('oauthResourceServer needs its options: { resource, issuer }');
  const resource = absoluteUrl('resource', options.resource);
  const clockToleranceSeconds = intOption(options, 'clockToleranceSeconds', 5, { owner: OWNER, min: 0 });
  const fetchImpl = options.fetch ?? ((input: string, init?: RequestInit) => globalThis.fetch(input, init));
  return {
    resource,
    issuer: absoluteUrl('issuer', options.issuer),
    audience: list('audience', options.audience, [resource]),
    algorithms: list('algorithms', options.algorithms, ASYMMETRIC_ALGORITHMS),
    clockToleranceSeconds,
    jwksUri: options.jwksUri === undefined ? undefined : absoluteUrl('jwksUri', options.jwksUri),
    jwks: jwksOf(options.jwks),
    jwksRefreshIntervalMs: intOption(options, 'jwksRefreshIntervalMs', 30_000, { owner: OWNER, min: 0 }),
    timeoutMs: intOption(options, 'timeoutMs', 5_000, { owner: OWNER, min: 1 }),
    scopes: list('scopes', options.scopes, []),
    cacheSize: intOption(options, 'cacheSize', 1_000, { owner: OWNER, min: 0 }),
    cacheTtlMs: intOption(options, 'cacheTtlMs', 300_000, { owner: OWNER, min: 1 }),
    exposeToken: options.exposeToken === true,
    tokenHeader: tokenHeaderOf(options.tokenHeader),
    dpop: dpopOf(options, clockToleranceSeconds),
    fetch: fetchImpl,
  };
}
