/**
 * `oauthResourceServer()`: the `auth` option of every HTTP entry. It takes the Bearer token from the
 * `Authorization` header, verifies it once (JWT by default, or your `verify`), keeps the answer in a
 * bounded cache until the token expires, and serves the Protected Resource Metadata.
 */
import type { AuthInfo } from '../protocol/auth-info.js';
import type { AuthRequest, HttpAuth } from '../transports/http/auth-gate.js';
import type { HeaderMap } from '../transports/http/exchange.js';
import { authInfoOf } from './claims.js';
import { Challenges } from './challenges.js';
import { IntrospectionBusy, Introspector } from './introspection.js';
import { IssuerUnavailable, JwtVerifier } from './jwt.js';
import { resolveOptions, type ResourceServerOptions, type ResourceServerSettings } from './options.js';
import { TokenCache } from './token-cache.js';
import { boundKey, DpopGate } from './dpop-gate.js';
import type { ProofStore } from '../state/proofs.js';

/** Longer tokens are refused unread: the cache holds at most cacheSize x this many bytes of keys. */
const MAX_TOKEN_LENGTH = 8192;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const DPOP = /^DPoP +([A-Za-z0-9\-._~+/]+=*) *$/i;
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** The metadata's URL and the paths it is served at: path-suffixed (RFC 9728 §3.1) and root. */
function metadataLocation(resource: string): { url: string; paths: string[] } {
  const { origin, pathname } = new URL(resource);
  const path = pathname.replace(/\/+$/, '');
  const suffixed = `/.well-known/oauth-protected-resource${path}`;
  return { url: `${origin}${suffixed}`, paths: [...new Set([suffixed, '/.well-known/oauth-protected-resource'])] };
}

function metadataOf(settings: ResourceServerSettings, options: ResourceServerOptions): string {
  const document: Record<string, unknown> = {
    resource: settings.resource,
    authorization_servers: [settings.issuer],
    bearer_methods_supported: ['header'],
  };
  if (settings.scopes.length > 0) document.scopes_supported = settings.scopes;
  if (options.resourceName !== undefined) document.resource_name = String(options.resourceName);
  if (options.documentation !== undefined) document.resource_documentation = String(options.documentation);
  if (settings.dpop !== undefined) {
    document.dpop_signing_alg_values_supported = settings.dpop.algorithms;
    document.dpop_bound_access_tokens_required = settings.dpop.required;
  }
  return JSON.stringify(document);
}

export class ResourceServer implements HttpAuth {
  readonly metadataPaths: readonly string[];
  /** Where the metadata is, as named in every challenge. */
  readonly metadataUrl: string;
  readonly #settings: ResourceServerSettings;
  readonly #document: string;
  readonly #challenges: Challenges;
  /** Plain bearer tokens only: a token bound to a key is never found by the Bearer path. */
  readonly #cache: TokenCache;
  /** Verified DPoP-bound tokens (each request still brings its own proof). */
  readonly #bound: TokenCache;
  readonly #dpop: DpopGate | undefined;
  readonly #jwt: JwtVerifier | undefined;
  readonly #introspector: Introspector | undefined;
  readonly #verify: ResourceServerOptions['verify'];
  readonly #onRejected: (reason: string) => void;
  /** Verifications under way, so a burst of requests with one new token verifies it once (at most one entry per request in flight). */
  readonly #pending = new Map<string, Promise<AuthInfo>>();

  constructor(options: ResourceServerOptions) {
    const settings = (this.#settings = resolveOptions(options));
    const location = metadataLocation(settings.resource);
    this.metadataPaths = Object.freeze(location.paths);
    this.metadataUrl = location.url;
    this.#document = metadataOf(settings, options);
    this.#challenges = new Challenges(location.url, settings.scopes, settings.dpop?.algorithms);
    this.#cache = new TokenCache(settings.cacheSize, settings.cacheTtlMs);
    this.#bound = new TokenCache(settings.dpop === undefined ? 0 : settings.cacheSize, settings.cacheTtlMs);
    if (options.verify !== undefined && typeof options.verify !== 'function') throw new TypeError('oauthResourceServer option verify must be a function');
    this.#verify = options.verify;
    this.#jwt = options.verify === undefined ? new JwtVerifier(settings) : undefined;
    this.#introspector = options.introspection === undefined ? undefined : new Introspector(options.introspection, settings);
    const onRejected = options.onRejected;
    this.#onRejected = typeof onRejected === 'function' ? (reason) => {
      try {
        onRejected(reason);
      } catch {
        // a broken log must not change the answer
      }
    } : () => {};
    this.#dpop = settings.dpop && new DpopGate(settings.dpop, new URL(settings.resource).origin, this.#challenges, this.#onRejected);
  }

  metadataDocument(): string {
    return this.#document;
  }

  /**
   * Synchronous for a bearer token verified before (the cache); a promise for a new one and for any
   * DPoP request. `state` is the server's shared state: DPoP proof ids are kept in `state.proofs`.
   */
  authenticate(request: AuthRequest, state?: { readonly proofs: ProofStore }): AuthInfo | Promise<AuthInfo> {
    const target = request.target();
    if (target.includes('access_token=') && /[?&]access_token=/.test(target)) throw this.#challenges.inQuery();
    if (this.#settings.tokenHeader !== undefined) return this.#fromHeader(request);
    const header = request.get('authorization');
    if (header === undefined || header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') return this.#otherScheme(header, request, state?.proofs);
    // Only well-formed tokens that passed verification are cached: a hit needs no further parsing.
    const cached = this.#cache.get(header.slice(7), Date.now());
    if (cached !== undefined) return cached;
    const token = header.length <= MAX_TOKEN_LENGTH ? BEARER.exec(header)?.[1] : undefined;
    if (token === undefined) throw this.#refuse('the Authorization header is not a well-formed Bearer token');
    return this.#cache.get(token, Date.now()) ?? this.#verifyOnce(token, request).then(this.#unbound);
  }

  /** A token bound to a key passes only with its proof: as a bearer token it is refused (RFC 9449 §7.1). */
  readonly #unbound = (auth: AuthInfo): AuthInfo => {
    if (boundKey(auth) !== undefined) throw this.#refuse('a DPoP-bound token came with the Bearer scheme');
    return auth;
  };

  /** `Authorization: DPoP <token>` with the `dpop` option on; anything else is a missing token. */
  #otherScheme(header: string | undefined, request: AuthRequest, proofs: ProofStore | undefined): Promise<AuthInfo> {
    if (this.#dpop === undefined || header === undefined || header.slice(0, 5).toLowerCase() !== 'dpop ') throw this.#challenges.missing();
    const token = header.length <= MAX_TOKEN_LENGTH ? DPOP.exec(header)?.[1] : undefined;
    if (token === undefined) throw this.#refuse('the Authorization header is not a well-formed DPoP token');
    const known = this.#bound.get(token, Date.now());
    if (known !== undefined) return this.#dpop.admit(known, token, request, proofs);
    return this.#verifyOnce(token, request).then((auth) => this.#dpop!.admit(auth, token, request, proofs));
  }

  /** The `tokenHeader` option: the whole header value is the token. */
  #fromHeader(request: AuthRequest): AuthInfo | Promise<AuthInfo> {
    const token = request.get(this.#settings.tokenHeader!);
    if (token === undefined || token === '') throw this.#challenges.missing();
    if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) throw this.#refuse(`the ${this.#settings.tokenHeader} header is not a well-formed token`);
    return this.#cache.get(token, Date.now()) ?? this.#verifyOnce(token, request).then(this.#unbound);
  }

  insufficientScope(needed: readonly string[], auth: AuthInfo | undefined): HeaderMap {
    return this.#challenges.insufficientScope(needed, auth?.scopes ?? []);
  }

  #verifyOnce(token: string, request: AuthRequest): Promise<AuthInfo> {
    const pending = this.#pending.get(token);
    if (pending !== undefined) return pending;
    const verifying = this.#verifyNew(token, request).finally(() => this.#pending.delete(token));
    this.#pending.set(token, verifying);
    return verifying;
  }

  async #verifyNew(token: string, request: AuthRequest): Promise<AuthInfo> {
    let claims: Record<string, unknown>;
    try {
      claims = await this.#claimsOf(token, request);
    } catch (error) {
      if (error instanceof IssuerUnavailable) {
        this.#onRejected(error.message);
        throw error instanceof IntrospectionBusy ? this.#challenges.busy() : this.#challenges.unavailable();
      }
      throw this.#refuse((error as Error)?.message ?? String(error));
    }
    const now = Date.now();
    if (typeof claims !== 'object' || claims === null) throw this.#refuse('the verifier returned no claims');
    if (typeof claims.exp === 'number' && claims.exp * 1000 + this.#settings.clockToleranceSeconds * 1000 <= now) throw this.#refuse('the token has expired');
    const info = authInfoOf(this.#verify !== undefined ? { iss: this.#settings.issuer, ...claims } : claims, this.#settings.exposeToken ? token : undefined);
    if (info === undefined) throw this.#refuse('the token names no subject (sub)');
    this.#keep(token, info, now);
    return info;
  }

  /** Bound tokens to their own cache; with `dpop` off a bound token is refused (its binding cannot be checked), with `'required'` an unbound one. */
  #keep(token: string, info: AuthInfo, now: number): void {
    const dpop = this.#settings.dpop;
    if (boundKey(info) === undefined) {
      if (dpop?.required) throw this.#refuse('the token is not DPoP-bound (cnf.jkt) and the dpop option is required');
      this.#cache.set(token, info, now);
    } else {
      if (dpop === undefined) throw this.#refuse('the token is DPoP-bound (cnf.jkt) and the dpop option is off');
      this.#bound.set(token, info, now);
    }
  }

  /** Your verifier, else a JWT checked here, else (an opaque token) introspection when configured. */
  #claimsOf(token: string, request: AuthRequest): Promise<Record<string, unknown>> | Record<string, unknown> {
    if (this.#verify !== undefined) return this.#verify(token, request);
    if (this.#introspector !== undefined && !JWT_SHAPE.test(token)) return this.#introspector.introspect(token);
    return this.#jwt!.verify(token);
  }

  #refuse(reason: string): Error {
    this.#onRejected(reason);
    return this.#challenges.invalid();
  }
}

/**
 * An OAuth 2.1 resource server for MiniMCP's HTTP entries: pass it as their `auth` option.
 *
 * ```ts
 * const auth = oauthResourceServer({ issuer: 'https://auth.example.com/', resource: 'https://mcp.example.com/mcp', scopes: ['mcp:tools'] });
 * await serve(mcp, { port: 3000, auth });
 * ```
 */
export function oauthResourceServer(options: ResourceServerOptions): ResourceServer {
  return new ResourceServer(options);
}
