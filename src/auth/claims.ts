/** From a verified token's claims (or an introspection answer) to `ctx.auth`. */
import type { AuthInfo } from '../protocol/auth-info.js';

/** `scope` (RFC 9068, space-separated), else `scp` (Entra ID: a string; Okta: an array). */
function scopesOf(claims: Record<string, unknown>): readonly string[] {
  const value = claims.scope ?? claims.scp;
  if (typeof value === 'string') return Object.freeze(value.split(' ').filter(Boolean));
  if (Array.isArray(value)) return Object.freeze(value.filter((s): s is string => typeof s === 'string'));
  return Object.freeze([]);
}

const stringClaim = (claims: Record<string, unknown>, name: string): string | undefined =>
  typeof claims[name] === 'string' && claims[name] !== '' ? (claims[name] as string) : undefined;

/**
 * The caller's facts; undefined when the token names no issuer or subject (nobody to bind state to).
 * The principal is `iss` and `sub` together, so equal subjects of two issuers stay apart.
 */
export function authInfoOf(claims: Record<string, unknown>, token: string | undefined): AuthInfo | undefined {
  const issuer = stringClaim(claims, 'iss');
  const subject = stringClaim(claims, 'sub');
  if (issuer === undefined || subject === undefined) return undefined;
  const exp = claims.exp;
  const info: AuthInfo = {
    principal: JSON.stringify([issuer, subject]),
    issuer,
    subject,
    clientId: stringClaim(claims, 'client_id') ?? stringClaim(claims, 'azp') ?? stringClaim(claims, 'appid'),
    scopes: scopesOf(claims),
    expiresAt: typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined,
    claims: Object.freeze({ ...claims }),
  };
  return Object.freeze(token === undefined ? info : { ...info, token });
}
