/**
 * oauthResourceServer() without an authorization server: option checks, the verified-token cache
 * (bounded, never past `exp`), issuer discovery order and its issuer check, the challenges.
 */
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { metadataUrls, oauthResourceServer, type AuthRequest } from '../../src/auth/index.js';
import { discoverIssuer } from '../../src/auth/discovery.js';
import { TokenCache } from '../../src/auth/token-cache.js';
import type { AuthInfo } from '../../src/index.js';

const BASE = { issuer: 'https://issuer.example', resource: 'https://mcp.example/mcp' };
const request = (authorization?: string, target = '/mcp'): AuthRequest => ({
  get: (name) => (name === 'authorization' ? authorization : undefined),
  target: () => target,
});

afterEach(() => {
  vi.useRealTimers();
});

describe('options', () => {
  it('refuses HMAC and none among the algorithms, and resources that are not absolute URLs without a fragment', () => {
    expect(() => oauthResourceServer({ ...BASE, algorithms: ['HS256'] })).toThrow(/HS256 is not allowed/);
    expect(() => oauthResourceServer({ ...BASE, algorithms: ['none'] })).toThrow(/none is not allowed/);
    expect(() => oauthResourceServer({ ...BASE, resource: '/mcp' })).toThrow(/resource must be an absolute URL/);
    expect(() => oauthResourceServer({ ...BASE, resource: 'https://mcp.example/mcp#x' })).toThrow(/without a fragment/);
    expect(() => oauthResourceServer({ ...BASE, cacheSize: -1 })).toThrow(/cacheSize must be an integer from 0 to/);
  });

  it('serves the metadata at the path-suffixed and root paths and names the suffixed one in challenges', () => {
    const auth = oauthResourceServer({ ...BASE, scopes: ['mcp:tools'], resourceName: 'Demo' });
    expect(auth.metadataPaths).toEqual(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']);
    expect(JSON.parse(auth.metadataDocument())).toEqual({
      resource: BASE.resource, authorization_servers: [BASE.issuer], bearer_methods_supported: ['header'], scopes_supported: ['mcp:tools'], resource_name: 'Demo',
    });
    expect(oauthResourceServer({ ...BASE, resource: 'https://mcp.example/' }).metadataPaths).toEqual(['/.well-known/oauth-protected-resource']);
  });
});

describe('the verified-token cache', () => {
  const info = (expiresAt: number | undefined): AuthInfo => ({ principal: 'p', issuer: 'i', subject: 's', clientId: undefined, scopes: [], expiresAt, claims: {} });

  it('holds at most maxEntries tokens, the oldest leaving first', () => {
    const cache = new TokenCache(2, 60_000);
    for (const token of ['a', 'b', 'c']) cache.set(token, info(undefined), 0);
    expect([cache.get('a', 1), cache.get('b', 1) !== undefined, cache.get('c', 1) !== undefined, cache.size]).toEqual([undefined, true, true, 2]);
  });

  it('never answers past the token expiry, nor past its ttl', () => {
    const cache = new TokenCache(10, 60_000);
    cache.set('short', info(1_000), 0);
    cache.set('long', info(10_000_000), 0);
    expect(cache.get('short', 999)).toBeDefined();
    expect(cache.get('short', 1_000)).toBeUndefined();
    expect(cache.get('long', 59_999)).toBeDefined();
    expect(cache.get('long', 60_000)).toBeUndefined();
    cache.set('expired', info(5), 10);
    expect(cache.size).toBe(0);
  });

  it('a token seen before is answered synchronously, without verifying again, until it expires', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const verify = vi.fn(() => ({ sub: 'alice', scope: 'a b', exp: 1_000 + 60 }));
    const auth = oauthResourceServer({ ...BASE, verify });
    const first = auth.authenticate(request('Bearer tok'));
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ subject: 'alice', scopes: ['a', 'b'], principal: JSON.stringify([BASE.issuer, 'alice']) });
    const again = auth.authenticate(request('Bearer tok'));
    expect(again).not.toBeInstanceOf(Promise);
    expect(verify).toHaveBeenCalledTimes(1);
    vi.setSystemTime(1_060_000); // the token's exp: no longer from the cache (verified again, within the clock tolerance)
    await auth.authenticate(request('Bearer tok'));
    expect(verify).toHaveBeenCalledTimes(2);
    vi.setSystemTime(1_065_000); // past the 5 s tolerance
    await expect(auth.authenticate(request('Bearer tok'))).rejects.toMatchObject({ httpStatus: 401 });
  });
});

describe('a burst of requests with one new token', () => {
  it('verifies it once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const verify = vi.fn(async () => {
      await gate;
      return { sub: 'alice', exp: Date.now() / 1000 + 60 };
    });
    const auth = oauthResourceServer({ ...BASE, verify });
    const burst = Array.from({ length: 5 }, () => auth.authenticate(request('Bearer fresh')));
    release();
    expect((await Promise.all(burst)).map((info) => info.subject)).toEqual(['alice', 'alice', 'alice', 'alice', 'alice']);
    expect(verify).toHaveBeenCalledTimes(1);
  });
});

describe('challenges', () => {
  const auth = oauthResourceServer({ ...BASE, scopes: ['mcp:tools'], verify: () => ({ sub: 'x', exp: Date.now() / 1000 + 60 }) });
  const challenge = (error: unknown) => (error as { headers: Record<string, string> }).headers['www-authenticate'];
  const META = 'resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"';

  /** What authenticate() threw (it refuses synchronously, before any verification). */
  const refusal = (authorization: string | undefined, target?: string): unknown => {
    try {
      void auth.authenticate(request(authorization, target));
    } catch (error) {
      return error;
    }
    throw new Error('not refused');
  };

  it('no token, another scheme, a malformed token, a token in the URL', () => {
    expect(refusal(undefined)).toMatchObject({ httpStatus: 401, message: 'Unauthorized: a bearer token is required' });
    expect(challenge(refusal('Basic abc'))).toBe(`Bearer ${META}`);
    expect(challenge(refusal('Bearer a b'))).toBe(`Bearer error="invalid_token", ${META}`);
    expect(challenge(refusal('Bearer ok', '/mcp?x=1&access_token=ok'))).toBe(`Bearer error="invalid_request", ${META}`);
  });

  it('tokenHeader: the token comes from that header (Cloudflare Access), the Authorization header is ignored', async () => {
    const edge = oauthResourceServer({ ...BASE, tokenHeader: 'cf-access-jwt-assertion', verify: (t) => ({ sub: t, exp: Date.now() / 1000 + 60 }) });
    const get = (headers: Record<string, string>): AuthRequest => ({ get: (name) => headers[name], target: () => '/mcp' });
    expect(await edge.authenticate(get({ 'cf-access-jwt-assertion': 'edge.jwt.sig' }))).toMatchObject({ subject: 'edge.jwt.sig' });
    expect(() => edge.authenticate(get({ authorization: 'Bearer x' }))).toThrow('Unauthorized: a bearer token is required');
    expect(() => oauthResourceServer({ ...BASE, tokenHeader: 'Cf Access' })).toThrow(/tokenHeader/);
  });

  it('403 names the scopes needed plus the relevant ones already granted', () => {
    expect(auth.insufficientScope(['mcp:admin'], { scopes: ['mcp:tools', 'email'] } as unknown as AuthInfo)).toEqual({
      'www-authenticate': 'Bearer error="insufficient_scope", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope="mcp:tools mcp:admin"',
    });
  });
});

describe('pinned keys (jwks)', () => {
  it('verifies a JWT with the given public keys, fetching nothing; refuses private or symmetric keys', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const fetchImpl = vi.fn(async () => new Response('no', { status: 500 }));
    const auth = oauthResourceServer({ ...BASE, jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k' }] }, fetch: fetchImpl });
    const token = await new SignJWT({ iss: BASE.issuer, sub: 'alice', aud: BASE.resource, scope: 'mcp:tools' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k' }).setIssuedAt().setExpirationTime('1m').sign(privateKey);
    expect(await auth.authenticate(request(`Bearer ${token}`))).toMatchObject({ subject: 'alice', scopes: ['mcp:tools'] });
    expect(fetchImpl).not.toHaveBeenCalled();
    const privateJwk = await exportJWK(privateKey);
    expect(() => oauthResourceServer({ ...BASE, jwks: { keys: [privateJwk] } })).toThrow(/public keys/);
    expect(() => oauthResourceServer({ ...BASE, jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } })).toThrow(/public keys/);
  });
});

describe('issuer discovery', () => {
  it('tries RFC 8414 then OpenID, with path insertion first (the order the MCP spec gives clients)', () => {
    expect(metadataUrls('https://auth.example.com/tenant1')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ]);
  });

  it('refuses a metadata document that names another issuer', async () => {
    const fetchImpl = async () => Response.json({ issuer: 'https://evil.example', jwks_uri: 'https://evil.example/jwks' });
    await expect(discoverIssuer('https://issuer.example', fetchImpl, 1000)).rejects.toThrow(/names the issuer https:\/\/evil.example/);
  });
});
