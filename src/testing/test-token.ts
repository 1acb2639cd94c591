/**
 * The test client's access token: what `minimcp/auth` would have made of a verified token with these
 * claims (the same `authInfoOf`, so `ctx.auth` and the principal match production exactly).
 */
import { authInfoOf } from '../auth/claims.js';
import type { AuthInfo } from '../protocol/auth-info.js';

/** A token the test client presents on every request, as if the HTTP `auth` option had verified it. */
export interface TestToken {
  /** Its subject (`sub`): with the issuer, the caller's principal. */
  subject: string;
  /** The scopes granted (the `scope` claim): per-operation scopes are checked against them. */
  scopes: readonly string[];
  /** Any other claims (`client_id`, `exp`, your own); `iss` defaults to `https://issuer.test/`. */
  claims?: Readonly<Record<string, unknown>>;
}

const DEFAULT_ISSUER = 'https://issuer.test/';

export function testToken(token: TestToken): AuthInfo {
  if (typeof token !== 'object' || token === null) throw new TypeError('createTestClient option auth must be { subject, scopes, claims? }');
  const { subject, scopes, claims } = token;
  if (typeof subject !== 'string' || subject === '') throw new TypeError('createTestClient option auth.subject must be a non-empty string');
  if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string' && /^\S+$/.test(scope))) {
    throw new TypeError('createTestClient option auth.scopes must be an array of scope names (no spaces)');
  }
  const info = authInfoOf({ iss: DEFAULT_ISSUER, ...claims, sub: subject, scope: scopes.join(' ') }, undefined);
  if (info === undefined) throw new TypeError('createTestClient option auth.claims.iss must be a non-empty string');
  return info;
}
