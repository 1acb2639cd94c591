/**
 * `npx tsx bench/auth.ts`: what minimcp/auth costs a request, on this machine, in one sitting.
 *
 * 1. authenticate() alone: a first verification (a new JWT: ES256 signature, claims) and a token
 *    seen before (the verified-token cache), per call.
 * 2. The same tools/call through the fetch handler in process (no sockets), without `auth` and with
 *    `auth` and a cached token: the difference is what a known token adds to a request's server CPU.
 *
 * 3. DPoP (RFC 9449): authenticate() for a bound token seen before, each call with a new proof
 *    (made beforehand): the proof's signature, its checks and the replay cache.
 *
 * The JWKS comes from a local node:http server (fetched once); times are CPU (process.cpuUsage).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { oauthResourceServer } from '../src/auth/index.js';
import { accessTokenHash } from '../src/auth/dpop.js';
import { MiniMCP } from '../src/index.js';
import { createFetchHandler } from '../src/transports/http/fetch-handler.js';

const RESOURCE = 'http://127.0.0.1/mcp';
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] });
const jwksServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
const issuer = 'https://issuer.example';
const jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`;

const sign = (sub: string) =>
  new SignJWT({ iss: issuer, sub, aud: RESOURCE, scope: 'mcp:tools', client_id: 'bench' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' }).setIssuedAt().setExpirationTime('1h').sign(privateKey);

const cpuMicros = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function perCall(label: string, n: number, fn: (i: number) => unknown): Promise<number> {
  // Synchronous answers (a cached token) are not awaited: a microtask would cost more than the lookup.
  for (let i = 0; i < Math.min(n, 1000); i++) {
    const result = fn(i);
    if (result instanceof Promise) await result;
  }
  const start = cpuMicros();
  for (let i = 0; i < n; i++) {
    const result = fn(i);
    if (result instanceof Promise) await result;
  }
  const each = (cpuMicros() - start) / n;
  console.log(`${label.padEnd(58)} ${each.toFixed(2).padStart(8)} µs CPU per call (n=${n})`);
  return each;
}

// 1. authenticate() alone.
const auth = oauthResourceServer({ issuer, resource: RESOURCE, jwksUri, cacheSize: 100_000 });
const request = (token: string) => ({ get: (name: string) => (name === 'authorization' ? `Bearer ${token}` : undefined), target: () => '/mcp' });
const fresh = await Promise.all(Array.from({ length: 3000 }, (_, i) => sign(`user-${i}`)));
await auth.authenticate(request(await sign('warm-keys'))); // the JWKS fetch, once
await perCall('authenticate(): first verification of a new JWT', 2000, (i) => auth.authenticate(request(fresh[i + 1000]!)));
const known = request(fresh[0]!);
await auth.authenticate(known);
await perCall('authenticate(): a token seen before (cache)', 1_000_000, () => auth.authenticate(known));

// 2. One request through the fetch handler, without and with auth.
function handler(withAuth: boolean) {
  const mcp = new MiniMCP({ name: 'bench', version: '1', asyncContext: false });
  mcp.tool('noop', {}, () => 'ok');
  const settings = { mode: 'json' as const, dnsRebinding: false as const };
  return createFetchHandler(mcp, withAuth ? { ...settings, auth: oauthResourceServer({ issuer, resource: RESOURCE, jwksUri }) } : settings);
}
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'noop', arguments: {} } });
const token = fresh[1]!;
const requestOf = (withAuth: boolean) => () =>
  new Request(RESOURCE, {
    method: 'POST',
    body,
    headers: {
      // Both send the token, so building the Request costs the same: only the server's work differs.
      'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${token}`,
    },
  });
const plain = handler(false);
const guarded = handler(true);
const makePlain = requestOf(false);
const makeGuarded = requestOf(true);
const check = await (await guarded(makeGuarded())).json();
if (check.result?.content?.[0]?.text !== 'ok') throw new Error(`unexpected answer: ${JSON.stringify(check)}`);
// Small alternating batches, then the median of the batch differences: on a shared machine a slow
// stretch then hits both sides alike instead of one whole run.
const batch = async (send: () => Promise<string>, n: number): Promise<number> => {
  const start = cpuMicros();
  for (let i = 0; i < n; i++) await send();
  return (cpuMicros() - start) / n;
};
const sendPlain = () => plain(makePlain()).then((r) => r.text());
const sendGuarded = () => guarded(makeGuarded()).then((r) => r.text());
await batch(sendPlain, 20_000);
await batch(sendGuarded, 20_000);
const sides: { plain: number[]; guarded: number[]; diff: number[] } = { plain: [], guarded: [], diff: [] };
for (let round = 0; round < 60; round++) {
  const first = round % 2 === 0;
  const a = await batch(first ? sendPlain : sendGuarded, 2_000);
  const b = await batch(first ? sendGuarded : sendPlain, 2_000);
  const [p, g] = first ? [a, b] : [b, a];
  sides.plain.push(p);
  sides.guarded.push(g);
  sides.diff.push(g - p);
}
const median = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 1]!;
console.log(`tools/call via fetch handler, no auth                       ${median(sides.plain).toFixed(2).padStart(8)} µs CPU per request (median of 60 batches of 2000)`);
console.log(`tools/call via fetch handler, auth + a token seen before    ${median(sides.guarded).toFixed(2).padStart(8)} µs CPU per request`);
console.log(`added by auth with a known token                            ${median(sides.diff).toFixed(2).padStart(8)} µs CPU per request (median of the 60 paired differences)`);

// 3. DPoP: a bound token seen before, a new proof each call (signed beforehand, so only the check counts).
const holder = await generateKeyPair('ES256');
const holderJwk = await exportJWK(holder.publicKey);
const boundToken = await new SignJWT({ iss: issuer, sub: 'dpop-user', aud: RESOURCE, scope: 'mcp:tools', cnf: { jkt: await calculateJwkThumbprint(holderJwk) } })
  .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' }).setIssuedAt().setExpirationTime('1h').sign(privateKey);
const ath = await accessTokenHash(boundToken);
const proofs = await Promise.all(Array.from({ length: 3000 }, (_, i) =>
  new SignJWT({ htm: 'POST', htu: RESOURCE, iat: Math.floor(Date.now() / 1000), jti: `p-${i}`, ath })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: holderJwk }).sign(holder.privateKey)));
const dpopAuth = oauthResourceServer({ issuer, resource: RESOURCE, jwksUri, dpop: 'allowed' });
const dpopRequest = (proof: string) => ({
  method: 'POST', target: () => '/mcp', get: (name: string) => (name === 'authorization' ? `DPoP ${boundToken}` : name === 'dpop' ? proof : undefined),
});
let nextProof = 0; // the warm-up takes the first 1000: every call has a proof never seen
await perCall('authenticate(): DPoP, known token + a new proof', 2000, () => dpopAuth.authenticate(dpopRequest(proofs[nextProof++]!)));
jwksServer.close();
