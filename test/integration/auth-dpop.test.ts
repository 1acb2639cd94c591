/**
 * DPoP (RFC 9449) against a real authorization server: oidc-provider issues a DPoP-bound JWT access
 * token (client_credentials with a proof), and MiniMCP takes it only with a fresh proof of the same
 * key for the very request. Two MiniMCP instances behind one front (as behind a load balancer) share
 * one state, in memory and on Redis: a proof replayed on the other instance is refused too.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthResourceServer } from '../../src/auth/index.js';
import { accessTokenHash } from '../../src/auth/dpop.js';
import { MiniMCP, resolveState, type SharedState } from '../../src/index.js';
import { redisState, type RedisState } from '../../src/redis/index.js';
import { createNodeHandler } from '../../src/transports/http/node.js';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';
import { clusterAvailable, startRedis, type Redis } from '../state/support/cluster.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
interface Front {
  url: string;
  /** Which instance answers the next requests. */
  use(instance: 0 | 1): void;
  rejected: string[];
  close(): Promise<void>;
}

let issuer: TestIssuer;
let key: { privateKey: CryptoKey; publicJwk: JWK };

beforeAll(async () => {
  issuer = await startIssuer();
  const pair = await generateKeyPair('ES256');
  key = { privateKey: pair.privateKey, publicJwk: await exportJWK(pair.publicKey) };
}, 30_000);
afterAll(async () => {
  await issuer?.close();
});

function createMcp(state: Partial<SharedState>): MiniMCP {
  const mcp = new MiniMCP({ name: 'dpop-test', version: '1.0.0', state, requestState: { secret: 'a shared secret of at least 32 bytes, for two instances' } });
  mcp.tool('whoami', { description: 'The caller as the token says' }, (_args, ctx) => `${ctx.auth?.subject} ${ctx.auth?.scopes.join(' ')}`);
  return mcp;
}

/** One URL, two MiniMCP instances (each with its own resource server) on the given states. */
async function startFront(states: [Partial<SharedState>, Partial<SharedState>]): Promise<Front> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const rejected: string[] = [];
  const handlers: Handler[] = states.map((state) =>
    createNodeHandler(createMcp(state), { auth: oauthResourceServer({ issuer: issuer.issuer, resource: url, dpop: 'allowed', onRejected: (r) => rejected.push(r) }) }));
  let current = 0;
  server.on('request', (req, res) => handlers[current]!(req, res));
  return {
    url,
    rejected,
    use: (instance) => void (current = instance),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function dpopProof(htm: string, htu: string, token?: string, claims: Record<string, unknown> = {}, signer = key): Promise<string> {
  const ath = token === undefined ? {} : { ath: await accessTokenHash(token) };
  return new SignJWT({ htm, htu, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID(), ...ath, ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: signer.publicJwk }).sign(signer.privateKey);
}

/** A DPoP-bound token from the authorization server, for `resource`. */
async function boundToken(resource: string): Promise<string> {
  return issuer.clientToken('alice-app', resource, 'mcp:tools', await dpopProof('POST', issuer.tokenEndpoint));
}

/** tools/call whoami in the 2026 era, with the given Authorization and DPoP headers. */
function call(url: string, authorization: string, dpop?: string): Promise<Response> {
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization, ...(dpop === undefined ? {} : { dpop }),
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta } }),
  });
}

async function expectAnswer(response: Response): Promise<void> {
  expect(response.status).toBe(200);
  expect((await response.json()).result.content[0].text).toBe('alice-app mcp:tools');
}

async function expectProofRefused(response: Response, front: Front, reason: RegExp): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+", DPoP error="invalid_dpop_proof", algs="/);
  await response.body?.cancel();
  expect(front.rejected.at(-1)).toMatch(reason);
}

/** The same checks on any pair of instances sharing their state. */
function replaySuite(name: string, states: () => [Partial<SharedState>, Partial<SharedState>]): void {
  describe(name, () => {
    let front: Front;
    let token: string;
    beforeAll(async () => {
      front = await startFront(states());
      token = await boundToken(front.url);
    });
    afterAll(() => front?.close());

    it('takes the bound token with a good proof; a replay is refused on this instance and on the other', async () => {
      expect(decodeJwt(token).cnf).toEqual({ jkt: await calculateJwkThumbprint(key.publicJwk) });
      front.use(0);
      const proof = await dpopProof('POST', front.url, token);
      await expectAnswer(await call(front.url, `DPoP ${token}`, proof));
      await expectProofRefused(await call(front.url, `DPoP ${token}`, proof), front, /replay/);
      front.use(1);
      await expectProofRefused(await call(front.url, `DPoP ${token}`, proof), front, /replay/);
      await expectAnswer(await call(front.url, `DPoP ${token}`, await dpopProof('POST', front.url, token)));
    });
  });
}

replaySuite('two instances sharing one memory state', () => {
  const state = resolveState();
  return [state, state];
});

const redisAvailable = clusterAvailable();
describe.skipIf(!redisAvailable)('on Redis', () => {
  let redis: Redis;
  const states: RedisState[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i++) states.push(await redisState({ url: redis.url, prefix: `dpop${process.pid}:`, onError: () => {} }));
  }, 30_000);
  afterAll(async () => {
    await Promise.all(states.map((state) => state.close()));
    await redis?.stop();
  });
  replaySuite('two instances, each with its own Redis connection', () => [states[0]!, states[1]!]);
});

describe('proofs that do not match the request or the token', () => {
  let front: Front;
  let token: string;
  beforeAll(async () => {
    front = await startFront([resolveState(), resolveState()]);
    token = await boundToken(front.url);
  });
  afterAll(() => front?.close());

  it('refuses a wrong htm, htu, ath or key, and the bound token as a Bearer token', async () => {
    await expectProofRefused(await call(front.url, `DPoP ${token}`, await dpopProof('GET', front.url, token)), front, /htm/);
    await expectProofRefused(await call(front.url, `DPoP ${token}`, await dpopProof('POST', `${front.url}/other`, token)), front, /htu/);
    await expectProofRefused(await call(front.url, `DPoP ${token}`, await dpopProof('POST', front.url, `${token}x`)), front, /ath/);
    const pair = await generateKeyPair('ES256');
    const stranger = { privateKey: pair.privateKey, publicJwk: await exportJWK(pair.publicKey) };
    await expectProofRefused(await call(front.url, `DPoP ${token}`, await dpopProof('POST', front.url, token, {}, stranger)), front, /bound to/);
    await expectProofRefused(await call(front.url, `DPoP ${token}`), front, /no DPoP proof/);
    const asBearer = await call(front.url, `Bearer ${token}`);
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", resource_metadata="[^"]+", DPoP algs="/);
    await asBearer.body?.cancel();
    expect(front.rejected.at(-1)).toMatch(/Bearer scheme/);
    // The token is good all along: with a proof that matches, it passes.
    await expectAnswer(await call(front.url, `DPoP ${token}`, await dpopProof('POST', front.url, token)));
  });

  it('advertises DPoP in the Protected Resource Metadata', async () => {
    const document = await (await fetch(`${new URL(front.url).origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(document).toMatchObject({ dpop_bound_access_tokens_required: false, dpop_signing_alg_values_supported: expect.arrayContaining(['ES256']) });
  });
});
