/**
 * What a verified access token says about the caller: `ctx.auth` in handlers and `caller.auth` in
 * visibility rules. Set by the HTTP transport's `auth` option (minimcp/auth); undefined elsewhere
 * (stdio, `handle()` without it). The token itself is left out unless the verifier was asked to keep it.
 */
export interface AuthInfo {
  /** Who is asking, derived from the token (`iss` + `sub`): sessions, streams, tasks and cancels are bound to it. */
  readonly principal: string;
  /** The token's issuer (`iss`). */
  readonly issuer: string;
  /** The token's subject (`sub`). */
  readonly subject: string;
  /** The OAuth client the token was issued to (`client_id`, else `azp`), when the token names one. */
  readonly clientId: string | undefined;
  /** The scopes granted (`scope`, else `scp`). */
  readonly scopes: readonly string[];
  /** When the token expires, in ms since the epoch (`exp`); undefined when it names no expiry. */
  readonly expiresAt: number | undefined;
  /** Every claim of the verified token (or of the introspection answer). */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The raw token: only when the verifier was configured with `exposeToken: true`. Never pass it on to another API. */
  readonly token?: string;
}

/** True when every scope in `needed` was granted. */
export function hasScopes(auth: AuthInfo, needed: readonly string[]): boolean {
  for (const scope of needed) if (!auth.scopes.includes(scope)) return false;
  return true;
}
