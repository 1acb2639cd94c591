/**
 * DPoP (RFC 9449) in oauthResourceServer() without an authorization server: each rule a proof must
 * meet, the binding between token and scheme, the replay cache (shared, keyed by principal, bounded),
 * the challenges and the metadata. Tokens are signed with a pinned key (the `jwks` option).
 */
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { oauthResourceServer, type AuthRequest, type ResourceServerOptions } from '../../src/auth/index.js';
import { accessTokenHash } from '../../src/auth/dpop.js';
import { MemoryProofStore } from '../../src/state/proofs.js';
import { ProofKeys } from '../../src/auth/proof-keys.js';

const ISSUER = 'https://issuer.example';
const RESOURCE = 'https://mcp.example/mcp';
type Pair = { privateKey: CryptoKey; publicJwk: JWK; jkt: string };

let issuerKey: CryptoKey;
let jwks: { keys: JWK[] };
let holder: Pair;
let other: Pair;

async function pair(alg = 'ES256'): Promise<Pair> {
  const keys = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(keys.publicKey);
  return { privateKey: keys.privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk) };
}

beforeAll(async () => {
  const keys = await generateKeyPair('ES256');
  issuerKey = keys.privateKey;
  jwks = { keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256' }] };
  holder = await pair();
  other = await pair();
});

const accessToken = (claims: Record<string, unknown> = {}, sub = 'alice'): Promise<string> =>
  new SignJWT({ scope: 'mcp:tools', ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setSubject(sub)
    .setAudience(RESOURCE).setIssuedAt().setExpirationTime('5m').sign(issuerKey);

const boundToken = (sub = 'alice'): Promise<string> => accessToken({ cnf: { jkt: holder.jkt } }, sub);

interface ProofParts {
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  key?: Pair;
  alg?: string;
}

let counter = 0;
async function proof(token: string, { header = {}, claims = {}, key = holder, alg = 'ES256' }: ProofParts = {}): Promise<string> {
  const payload = { htm: 'POST', htu: RESOURCE, iat: Math.floor(Date.now() / 1000), jti: `jti-${++counter}`, ath: await accessTokenHash(token), ...claims };
  for (const [name, value] of Object.entries(payload)) if (value === undefined) delete (payload as Record<string, unknown>)[name];
  return new SignJWT(payload).setProtectedHeader({ alg, typ: 'dpop+jwt', jwk: key.publicJwk, ...header }).sign(key.privateKey);
}

const request = (authorization: string, dpop?: string, method = 'POST', target = '/mcp'): AuthRequest => ({
  method,
  get: (name) => (name === 'authorization' ? authorization : name === 'dpop' ? dpop : undefined),
  target: () => target,
});

const server = (options: Partial<ResourceServerOptions> = {}, reasons: string[] = []) =>
  oauthResourceServer({ issuer: ISSUER, resource: RESOURCE, jwks, dpop: 'allowed', onRejected: (r) => reasons.push(r), ...options });

/** What authenticate() refused with (status, challenge) and the reason it logged. */
async function refusal(auth: ReturnType<typeof server>, req: AuthRequest, reasons: string[], proofs?: MemoryProofStore) {
  try {
    await auth.authenticate(req, proofs && { proofs });
  } catch (error) {
    const { httpStatus, headers } = error as { httpStatus: number; headers: Record<string, string> };
    return { status: httpStatus, challenge: headers?.['www-authenticate'], reason: reasons.at(-1) };
  }
  throw new Error('the request was accepted');
}

describe('a DPoP proof', () => {
  it('with every rule met lets a bound token in, with its principal and scopes', async () => {
    const token = await boundToken();
    const auth = await server().authenticate(request(`DPoP ${token}`, await proof(token)));
    expect(auth).toMatchObject({ subject: 'alice', scopes: ['mcp:tools'] });
    // Seen before, the token skips its signature check, never the proof.
    const again = server();
    await again.authenticate(request(`DPoP ${token}`, await proof(token)));
    await expect(again.authenticate(request(`DPoP ${token}`, undefined))).rejects.toMatchObject({ httpStatus: 401 });
  });

  const cases: [string, (token: string) => Promise<string | undefined>, RegExp, Partial<ResourceServerOptions>?][] = [
    ['missing', async () => undefined, /no DPoP proof header/],
    ['of another type (typ)', (t) => proof(t, { header: { typ: 'JWT' } }), /"typ"/],
    ['signed with an algorithm not allowed', async (t) => proof(t, { key: await pair('PS256'), alg: 'PS256' }), /"alg"/, { dpopAlgorithms: ['ES256'] }],
    ['signed by another key than its jwk', async (t) => proof(t, { header: { jwk: holder.publicJwk }, key: other }), /signature verification failed/],
    ['by a key the token is not bound to', (t) => proof(t, { key: other }), /not the one the token is bound to/],
    ['for another method (htm)', (t) => proof(t, { claims: { htm: 'GET' } }), /htm/],
    ['for another URL (htu)', (t) => proof(t, { claims: { htu: 'https://mcp.example/other' } }), /htu/],
    ['for another host (htu)', (t) => proof(t, { claims: { htu: 'https://evil.example/mcp' } }), /htu/],
    ['too old (iat)', (t) => proof(t, { claims: { iat: Math.floor(Date.now() / 1000) - 61 } }), /iat/],
    // The tolerance for a future iat comes out of the age: 56 s (of 60, tolerance 5) is too old.
    ['older than the age less the tolerance (iat)', (t) => proof(t, { claims: { iat: Math.floor(Date.now() / 1000) - 56 } }), /iat/],
    ['from the future (iat)', (t) => proof(t, { claims: { iat: Math.floor(Date.now() / 1000) + 30 } }), /iat/],
    ['without iat', (t) => proof(t, { claims: { iat: undefined } }), /iat/],
    ['for another token (ath)', async (t) => proof(t, { claims: { ath: await accessTokenHash(`${t}x`) } }), /ath/],
    ['without ath', (t) => proof(t, { claims: { ath: undefined } }), /ath/],
    ['without jti', (t) => proof(t, { claims: { jti: undefined } }), /jti/],
    ['with a jti over 128 characters', (t) => proof(t, { claims: { jti: 'j'.repeat(129) } }), /jti/],
  ];
  for (const [name, make, reason, options] of cases) {
    it(`${name} is refused: 401 invalid_dpop_proof beside the Bearer challenge`, async () => {
      const reasons: string[] = [];
      const token = await boundToken();
      const refused = await refusal(server(options, reasons), request(`DPoP ${token}`, await make(token)), reasons);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toMatch(/^Bearer resource_metadata="https:\/\/mcp\.example\/\.well-known\/oauth-protected-resource\/mcp", DPoP error="invalid_dpop_proof", algs="/);
      expect(refused.reason).toMatch(reason);
    });
  }

  it('once its key is known (imported once), still refuses a proof by another key or not signed by its jwk', async () => {
    const reasons: string[] = [];
    const token = await boundToken();
    const auth = server({}, reasons);
    for (let i = 0; i < 2; i++) await auth.authenticate(request(`DPoP ${token}`, await proof(token)));
    expect(await refusal(auth, request(`DPoP ${token}`, await proof(token, { key: other })), reasons)).toMatchObject({ reason: expect.stringMatching(/bound to/) });
    const forged = await proof(token, { header: { jwk: holder.publicJwk }, key: other });
    expect(await refusal(auth, request(`DPoP ${token}`, forged), reasons)).toMatchObject({ reason: expect.stringMatching(/signature verification failed/) });
    const privateJwk = { ...holder.publicJwk, d: (await exportJWK(holder.privateKey)).d };
    const withPrivate = await proof(token, { header: { jwk: privateJwk } });
    expect(await refusal(auth, request(`DPoP ${token}`, withPrivate), reasons)).toMatchObject({ reason: expect.stringMatching(/must be a public key/) });
  });

  it('keeps imported keys only for a matching thumbprint, at most maxKeys of them', async () => {
    const keys = new ProofKeys(2);
    const third = await pair();
    const header = (p: Pair) => ({ alg: 'ES256', jwk: p.publicJwk });
    await expect(keys.resolver(holder.jkt)(header(other))).rejects.toThrow(/not the one the token is bound to/);
    expect(keys.size).toBe(0);
    for (const p of [holder, other, third]) await keys.resolver(p.jkt)(header(p));
    expect(keys.size).toBe(2);
  });

  it('keeps its id from min(iat, now): a proof dated ahead stays no longer', async () => {
    const kept: number[] = [];
    const proofs = { remember: (_p: string, _j: string, until: number) => (kept.push(until), 'fresh' as const) };
    const token = await boundToken();
    const now = Date.now();
    const ahead = await proof(token, { claims: { iat: Math.floor(now / 1000) + 5 } });
    await server().authenticate(request(`DPoP ${token}`, ahead), { proofs });
    expect(kept[0]).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(kept[0]).toBeGreaterThanOrEqual(now + 60_000);
  });

  it('matches htu without the query, and names the method it came with', async () => {
    const token = await boundToken();
    const auth = server();
    await expect(auth.authenticate(request(`DPoP ${token}`, await proof(token, { claims: { htu: `${RESOURCE}?a=1` } }), 'POST', '/mcp?b=2'))).resolves.toBeDefined();
    await expect(auth.authenticate(request(`DPoP ${token}`, await proof(token, { claims: { htm: 'GET' } }), 'GET'))).resolves.toBeDefined();
  });
});

describe('the binding between token and scheme', () => {
  it('refuses a DPoP-bound token sent as a Bearer token, also once it was seen with its proof', async () => {
    const reasons: string[] = [];
    const token = await boundToken();
    const auth = server({}, reasons);
    expect(await refusal(auth, request(`Bearer ${token}`), reasons)).toMatchObject({ status: 401, reason: expect.stringMatching(/Bearer scheme/) });
    await auth.authenticate(request(`DPoP ${token}`, await proof(token)));
    expect(await refusal(auth, request(`Bearer ${token}`), reasons)).toMatchObject({ status: 401, reason: expect.stringMatching(/Bearer scheme/) });
  });

  it('refuses an unbound token with the DPoP scheme, and keeps plain Bearer tokens working when allowed', async () => {
    const reasons: string[] = [];
    const token = await accessToken();
    const auth = server({}, reasons);
    expect(await refusal(auth, request(`DPoP ${token}`, await proof(token)), reasons)).toMatchObject({ status: 401, reason: expect.stringMatching(/unbound token/) });
    expect(await auth.authenticate(request(`Bearer ${token}`))).toMatchObject({ subject: 'alice' });
  });

  it("with dpop 'required' refuses unbound tokens; with dpop off refuses bound ones (their binding cannot be checked)", async () => {
    const reasons: string[] = [];
    const plain = await accessToken();
    expect(await refusal(server({ dpop: 'required' }, reasons), request(`Bearer ${plain}`), reasons)).toMatchObject({ status: 401, reason: expect.stringMatching(/not DPoP-bound/) });
    const bound = await boundToken();
    expect(await refusal(server({ dpop: undefined }, reasons), request(`Bearer ${bound}`), reasons)).toMatchObject({ status: 401, reason: expect.stringMatching(/dpop option is off/) });
    const off = await refusal(server({ dpop: undefined }, reasons), request(`DPoP ${bound}`, await proof(bound)), reasons);
    expect(off).toMatchObject({ status: 401, challenge: expect.stringMatching(/^Bearer resource_metadata="[^"]+"$/) });
  });

  it('offers the DPoP scheme in the 401 without credentials, and advertises it in the metadata', async () => {
    const reasons: string[] = [];
    expect((await refusal(server({ dpopAlgorithms: ['ES256', 'EdDSA'] }, reasons), request(''), reasons)).challenge).toBe(
      'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", DPoP algs="ES256 EdDSA"',
    );
    expect(JSON.parse(server({ dpop: 'required', dpopAlgorithms: ['ES256'] }).metadataDocument())).toMatchObject({
      dpop_signing_alg_values_supported: ['ES256'], dpop_bound_access_tokens_required: true,
    });
    expect(JSON.parse(server({ dpop: undefined }).metadataDocument())).not.toHaveProperty('dpop_signing_alg_values_supported');
  });

  it('binds a token from introspection or your own verifier through its cnf.jkt, as a JWT', async () => {
    const reasons: string[] = [];
    const exp = Math.floor(Date.now() / 1000) + 300;
    const auth = server({ verify: () => ({ sub: 'alice', exp, cnf: { jkt: holder.jkt } }) }, reasons);
    expect(await refusal(auth, request('Bearer opaque-token'), reasons)).toMatchObject({ status: 401, reason: expect.stringMatching(/Bearer scheme/) });
    await expect(auth.authenticate(request('DPoP opaque-token', await proof('opaque-token')))).resolves.toMatchObject({ subject: 'alice' });
    expect(await refusal(auth, request('DPoP opaque-token', await proof('opaque-token', { key: other })), reasons)).toMatchObject({ status: 401, reason: expect.stringMatching(/bound to/) });
  });

  it('checks its options', () => {
    expect(() => server({ dpop: 'yes' as never })).toThrow(/dpop must be 'allowed' or 'required'/);
    expect(() => server({ dpopAlgorithms: ['HS256'] })).toThrow(/HS256 is not allowed/);
    expect(() => server({ dpopMaxAgeSeconds: 0 })).toThrow(/dpopMaxAgeSeconds must be/);
    expect(() => server({ dpopMaxAgeSeconds: 5 })).toThrow(/dpopMaxAgeSeconds must be greater than clockToleranceSeconds/);
    expect(() => server({ dpop: undefined, dpopMaxAgeSeconds: 30 })).toThrow(/need dpop/);
  });
});

describe('the replay cache', () => {
  it('refuses a proof seen before, on this server and on another sharing the state', async () => {
    const reasons: string[] = [];
    const proofs = new MemoryProofStore();
    const token = await boundToken();
    const once = await proof(token);
    await server().authenticate(request(`DPoP ${token}`, once), { proofs });
    expect(await refusal(server({}, reasons), request(`DPoP ${token}`, once), reasons, proofs)).toMatchObject({ status: 401, reason: expect.stringMatching(/replay/) });
    const alone = server({}, reasons);
    await alone.authenticate(request(`DPoP ${token}`, once));
    expect(await refusal(alone, request(`DPoP ${token}`, once), reasons)).toMatchObject({ status: 401, reason: expect.stringMatching(/replay/) });
  });

  it('keys ids by principal, bounds them per principal and in all (503), and forgets them when their proof is too old anyway', () => {
    const store = new MemoryProofStore({ maxProofsPerPrincipal: 2, maxTotalProofs: 3 });
    expect(['a', 'b', 'c'].map((jti) => store.remember('alice', jti, 1_000, 0))).toEqual(['fresh', 'fresh', 'maxProofsPerPrincipal']);
    expect(store.remember('bob', 'a', 1_000, 0)).toBe('fresh');
    expect(store.remember('bob', 'a', 1_000, 1)).toBe('replayed');
    expect(store.remember('carol', 'x', 1_000, 0)).toBe('maxTotalProofs');
    expect(store.remember('alice', 'a', 2_000, 1_000)).toBe('fresh');
    // Every id whose time came has left, bob's too (expiry is swept in time order, whoever asks).
    expect(store.size).toBe(1);
    expect(store.remember('carol', 'x', 2_000, 1_000)).toBe('fresh');
    expect(store.remember('dave', 'y', 2_000, 1_000)).toBe('fresh');
    expect(store.size).toBe(3);
  });

  it('lets ids leave in time order, even when a later one was kept first', () => {
    const store = new MemoryProofStore();
    expect(store.remember('alice', 'late', 5_000, 0)).toBe('fresh');
    expect(store.remember('alice', 'early', 1_000, 0)).toBe('fresh');
    expect(store.remember('bob', 'b', 9_000, 2_000)).toBe('fresh');
    expect(store.size).toBe(2);
    expect(store.remember('alice', 'early', 9_000, 2_000)).toBe('fresh');
    expect(store.remember('alice', 'late', 9_000, 2_000)).toBe('replayed');
  });

  it('shares the total fairly: a few busy principals cannot lock a newcomer, or a user under its share, out', () => {
    const store = new MemoryProofStore(); // the defaults: 10,000 per principal, 100,000 in all
    const heavy = Array.from({ length: 10 }, (_, i) => `heavy-${i}`);
    const refused = { lightLate: 0, newcomers: 0 };
    // Two simulated minutes, ids living 60 s: ten principals ask 200 times a second (12,000 live ids
    // wanted each), a light user 20 times (1,200), and a new principal comes every 5 seconds. The busy
    // ones took more than their share while they were few; from the second minute on (their early ids
    // gone) each holds at most its share, and the light user, under its own, is never refused.
    for (let second = 0; second < 120; second++) {
      const now = second * 1_000;
      for (const who of heavy) for (let i = 0; i < 200; i++) store.remember(who, `${second}-${i}`, now + 60_000, now);
      for (let i = 0; i < 20; i++) {
        if (store.remember('light', `${second}-${i}`, now + 60_000, now) !== 'fresh' && second >= 60) refused.lightLate++;
      }
      if (second % 5 === 0 && store.remember(`newcomer-${second}`, 'first', now + 60_000, now) !== 'fresh') refused.newcomers++;
      expect(store.size).toBeLessThan(100_000);
    }
    expect(refused).toEqual({ lightLate: 0, newcomers: 0 });
    // A busy principal over its share is refused.
    expect(store.remember('heavy-0', 'more', 180_000, 120_000)).toBe('maxTotalProofs');
  });

  it('costs a request no walk over every kept id when the store is at its bound', () => {
    const store = new MemoryProofStore({ maxProofsPerPrincipal: 100_000, maxTotalProofs: 100_000 });
    for (let i = 0; i < 100_000; i++) store.remember(`p${i % 10}`, `j${i}`, 60_000, 0);
    const started = performance.now();
    for (let i = 0; i < 5_000; i++) store.remember(`p${i % 10}`, `again-${i}`, 60_000, 1);
    // A walk over 100,000 ids costs about 0.4 ms a call (2 s here); the ordered sweep a few µs.
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('answers 503 with Retry-After when the principal has no room, never evicting', async () => {
    const reasons: string[] = [];
    const proofs = new MemoryProofStore({ maxProofsPerPrincipal: 1 });
    const token = await boundToken();
    await server().authenticate(request(`DPoP ${token}`, await proof(token)), { proofs });
    const full = server({}, reasons);
    await expect(full.authenticate(request(`DPoP ${token}`, await proof(token)), { proofs })).rejects.toMatchObject({ httpStatus: 503, headers: { 'retry-after': '5' } });
    expect(reasons.at(-1)).toMatch(/maxProofsPerPrincipal/);
    const bob = await boundToken('bob');
    await expect(full.authenticate(request(`DPoP ${bob}`, await proof(bob)), { proofs })).resolves.toMatchObject({ subject: 'bob' });
  });
});
