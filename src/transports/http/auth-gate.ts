/**
 * The HTTP side of authorization, without any JOSE code: the `auth` option's contract (implemented
 * by minimcp/auth, or by hand), the Protected Resource Metadata answer (RFC 9728) and who the
 * request's principal is. A token is checked before the body is read; its facts become `ctx.auth`.
 */
import type { AuthInfo } from '../../protocol/auth-info.js';
import { hashing, loadCrypto } from '../../platform/crypto.js';
import { toBase64url } from '../../platform/base64url.js';
import type { MiniMCP } from '../../server.js';
import type { ProofStore } from '../../state/proofs.js';
import type { Exchange, HeaderMap } from './exchange.js';

/** What the authenticator sees of a request. */
export interface AuthRequest {
  /** The HTTP method, upper case (a DPoP proof names it). */
  readonly method?: string;
  /** A request header by lower-case name. */
  get(name: string): string | undefined;
  /** The request target: path and query, as received. */
  target(): string;
}

/** The HTTP transport's `auth` option: `oauthResourceServer()` from minimcp/auth builds one. */
export interface HttpAuth {
  /** Paths that serve the Protected Resource Metadata document (RFC 9728: root and path-suffixed forms). */
  readonly metadataPaths: readonly string[];
  /** The Protected Resource Metadata document, as JSON text. */
  metadataDocument(): string;
  /**
   * Verifies the request's credentials. Throws an McpError with `httpStatus` 401 (and a
   * `WWW-Authenticate` challenge in `headers`) when they are missing or invalid. `state` is the
   * server's shared state (DPoP proof ids are kept in `state.proofs`).
   */
  authenticate(request: AuthRequest, state?: { readonly proofs: ProofStore }): AuthInfo | Promise<AuthInfo>;
  /** The headers of a 403 for a token without the scopes an operation needs (`insufficient_scope`). */
  insufficientScope(needed: readonly string[], auth: AuthInfo | undefined): HeaderMap;
}

const METADATA_HEADERS: HeaderMap = {
  'content-type': 'application/json',
  // Public, and read by browser-based clients on any origin (MCP Inspector, web apps).
  'access-control-allow-origin': '*',
  'cache-control': 'max-age=3600',
};

/** Whether this request asks for the metadata document (only then is it answered here). */
export function isMetadataRequest(auth: HttpAuth, ex: Exchange<unknown>): boolean {
  const target = ex.target();
  if (!target.startsWith('/.well-known/')) return false;
  const query = target.indexOf('?');
  return auth.metadataPaths.includes(query < 0 ? target : target.slice(0, query));
}

/** GET/HEAD answer the document; OPTIONS a CORS preflight; anything else 405. */
export function serveMetadata(auth: HttpAuth, ex: Exchange<unknown>): void {
  if (ex.method === 'GET') return ex.respond(200, METADATA_HEADERS, auth.metadataDocument());
  if (ex.method === 'HEAD') return ex.respond(200, METADATA_HEADERS, undefined);
  if (ex.method === 'OPTIONS') {
    return ex.respond(204, { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-max-age': '600' }, undefined);
  }
  ex.respond(405, { allow: 'GET, HEAD, OPTIONS' }, undefined);
}

/**
 * The request's principal: the server's own answer (the token's `iss`+`sub`, refined by the `principal`
 * option or the scope's `principal`; without a token, those alone), else, when a scope factory accepted the caller without naming anyone,
 * one derived from the credential it presented. Why derived: the server cannot see at construction
 * what a scope will hold, refusing at run time would break single-user servers that work today, and a
 * warning leaves the hole open. A hash of the `Authorization` header keeps two credentials apart
 * always; the worst case, one user with two tokens, is two principals (a lost session, never a leak).
 */
export function principalFor<Scope>(mcp: MiniMCP<Scope>, scope: Scope | undefined, auth: AuthInfo | undefined, ex: Exchange<Scope>): string | Promise<string> {
  const named = mcp.principalOf(scope, auth);
  if (named !== '' || scope === undefined || auth !== undefined) return named;
  const credential = ex.get('authorization');
  if (credential === undefined || credential === '') return named;
  const loading = loadCrypto();
  return loading === undefined ? credentialPrincipal(credential) : loading.then(() => credentialPrincipal(credential));
}

const credentialPrincipal = (credential: string): string => `credential:${toBase64url(hashing().sha256(credential))}`;
