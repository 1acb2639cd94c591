/**
 * minimcp/auth against a real authorization server (oidc-provider, in process, resource indicators,
 * JWT access tokens): Protected Resource Metadata, the 401/403 challenges, both protocol eras through
 * the official clients, every way a token can be wrong, scopes per operation, and per-user state.
 * Tokens the server would never issue are signed here with its own published key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SignJWT, UnsecuredJWT, decodeJwt, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthResourceServer } from '../../src/auth/index.js';
import { MiniMCP } from '../../src/index.js';
import { createNodeHandler } from '../../src/transports/http/node.js';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';

let issuer: TestIssuer;
let server: Server;
let url: string;
let origin: string;
const rejected: string[] = [];

function createMcp(): MiniMCP {
  const mcp = new MiniMCP({ name: 'auth-test', version: '1.0.0', scopes: ({ kind }) => (kind === 'tool' ? ['mcp:tools'] : undefined) });
  mcp.tool('whoami', { description: 'The caller as the token says' }, (_args, ctx) =>
    JSON.stringify({ subject: ctx.auth?.subject, clientId: ctx.auth?.clientId, scopes: ctx.auth?.scopes, token: ctx.auth?.token, exp: typeof ctx.auth?.expiresAt }));
  mcp.tool('admin_reset', { description: 'Needs the admin scope', scopes: ['mcp:admin'] }, () => 'reset');
  mcp.tool('later', { description: 'A task', task: 'optional' }, async () => 'done');
  mcp.resource('docs://public', {}, () => 'public, no scope');
  mcp.method('acme/reset', { scopes: ['mcp:admin'] }, () => ({ reset: true }));
  mcp.tool('secret', { description: 'Ends its stream early; the result waits for a resuming GET' }, async (_args, ctx) => {
    ctx.closeStream();
    await new Promise((resolve) => setTimeout(resolve, 20));
    return `secret result for ${ctx.auth?.subject}`;
  });
  return mcp;
}

beforeAll(async () => {
  issuer = await startIssuer();
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  url = `${origin}/mcp`;
  const auth = oauthResourceServer({
    issuer: issuer.issuer, resource: url, scopes: ['mcp:tools'], jwksRefreshIntervalMs: 400, onRejected: (reason) => rejected.push(reason),
  });
  const handler = createNodeHandler(createMcp(), { auth });
  server.on('request', (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/mcp' || auth.metadataPaths.includes(path)) return handler(req, res);
    res.writeHead(404).end();
  });
}, 30_000);
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await issuer?.close();
});

const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
const post = (token: string | undefined, body: object = { jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT }, target = url, extra: Record<string, string> = {}) =>
  fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra },
    body: JSON.stringify(body),
  });
const aliceToken = (scope = 'mcp:tools') => issuer.clientToken('alice-app', url, scope);
const metadataUrl = () => `${origin}/.well-known/oauth-protected-resource/mcp`;
const now = () => Math.floor(Date.now() / 1000);

/** A token signed with the issuer's own key; `claims` and `header` override the valid defaults. */
function forge(claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  const payload = { iss: issuer.issuer, sub: 'alice-app', aud: url, scope: 'mcp:tools', client_id: 'alice-app', iat: now(), exp: now() + 300, ...claims };
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: issuer.signingKey.kid, ...header }).sign(issuer.signingKey.privateKey);
}

async function expectInvalid(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", resource_metadata="${metadataUrl()}", scope="mcp:tools"`);
  expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Unauthorized: the token is invalid or expired' } });
}

describe('Protected Resource Metadata and challenges', () => {
  it('serves RFC 9728 metadata at the path-suffixed and root well-known URLs, readable from any origin', async () => {
    const expected = { resource: url, authorization_servers: [issuer.issuer], bearer_methods_supported: ['header'], scopes_supported: ['mcp:tools'] };
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${origin}${path}`, { headers: { origin: 'https://inspector.example' } });
      expect([response.status, response.headers.get('access-control-allow-origin')]).toEqual([200, '*']);
      expect(await response.json()).toEqual(expected);
    }
    const preflight = await fetch(metadataUrl(), { method: 'OPTIONS', headers: { origin: 'https://inspector.example', 'access-control-request-method': 'GET' } });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, '*']);
    expect((await fetch(metadataUrl(), { method: 'POST' })).status).toBe(405);
  });

  it('answers a request without a token 401 with the challenge the SDK reads', async () => {
    const response = await post(undefined);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl()}", scope="mcp:tools"`);
    expect(extractWWWAuthenticateParams(response)).toEqual({ resourceMetadataUrl: new URL(metadataUrl()), scope: 'mcp:tools', error: undefined });
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Unauthorized: a bearer token is required' } });
    expect((await post(undefined, undefined, url, { authorization: 'Basic YWxpY2U6eA==' })).status).toBe(401);
  });

  it('refuses a token in the query string, even a valid one beside a valid header, and never echoes it', async () => {
    const token = await aliceToken();
    const response = await post(token, undefined, `${url}?access_token=${token}`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer error="invalid_request", resource_metadata="${metadataUrl()}", scope="mcp:tools"`);
    expect(await response.text()).not.toContain(token.slice(-20));
  });
});

describe('a valid token from the authorization server', () => {
  const whoami = { name: 'whoami', arguments: {} };

  it('SDK v1 (2025-11-25): ctx.auth has the subject, client and scopes, never the token', async () => {
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(url), { requestInit: { headers: { authorization: `Bearer ${await aliceToken()}` } } }));
    try {
      expect((client.transport as TransportV1).protocolVersion).toBe('2025-11-25');
      const text = ((await client.callTool(whoami)).content as { text: string }[])[0]!.text;
      expect(JSON.parse(text)).toEqual({ subject: 'alice-app', clientId: 'alice-app', scopes: ['mcp:tools'], exp: 'number' });
    } finally {
      await client.close();
    }
  });

  it('client v2 (2026-07-28, stateless): the same', async () => {
    const client = new ClientV2({ name: 'client-v2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(new URL(url), { requestInit: { headers: { authorization: `Bearer ${await aliceToken()}` } } }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const text = ((await client.callTool(whoami)).content as { text: string }[])[0]!.text;
      expect(JSON.parse(text)).toMatchObject({ subject: 'alice-app', clientId: 'alice-app', scopes: ['mcp:tools'] });
    } finally {
      await client.close();
    }
  });
});

describe('tokens that must be refused', () => {
  it('a token the authorization server issued for another resource (audience)', async () => {
    const token = await issuer.clientToken('alice-app', 'https://other.example/mcp', 'mcp:tools');
    expect(decodeJwt(token).aud).toBe('https://other.example/mcp');
    await expectInvalid(await post(token));
  });

  it('a token from another issuer', async () => {
    await expectInvalid(await post(await forge({ iss: 'https://evil.example' })));
  });

  it('an expired token (past the 5 s tolerance)', async () => {
    await expectInvalid(await post(await forge({ iat: now() - 120, exp: now() - 60 })));
  });

  it('a token not yet valid (nbf) or issued in the future (iat)', async () => {
    await expectInvalid(await post(await forge({ nbf: now() + 60 })));
    await expectInvalid(await post(await forge({ iat: now() + 60 })));
  });

  it('a real token whose payload was changed (signature no longer matches)', async () => {
    const [header, payload, signature] = (await aliceToken()).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const changed = Buffer.from(JSON.stringify({ ...claims, scope: 'mcp:tools mcp:admin' })).toString('base64url');
    await expectInvalid(await post(`${header}.${changed}.${signature}`));
  });

  it('an unsigned token (alg none) and an HMAC token keyed with the public key', async () => {
    const claims = { iss: issuer.issuer, sub: 'alice-app', aud: url, scope: 'mcp:tools', exp: now() + 300 };
    await expectInvalid(await post(new UnsecuredJWT(claims).encode()));
    const publicJwk = await (await fetch(`${issuer.issuer}/jwks`)).text();
    const hmac = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: issuer.signingKey.kid }).sign(new TextEncoder().encode(publicJwk));
    await expectInvalid(await post(hmac));
  });

  it('an unknown kid: the JWKS is fetched again once, then the token is refused; no refetch within the interval', async () => {
    await post(await aliceToken()); // keys loaded
    await new Promise((resolve) => setTimeout(resolve, 450)); // past jwksRefreshIntervalMs
    const before = issuer.jwksFetches;
    const rogue = await generateKeyPair('ES256');
    const sign = (kid: string) => new SignJWT({ iss: issuer.issuer, sub: 'alice-app', aud: url, scope: 'mcp:tools', exp: now() + 300 })
      .setProtectedHeader({ alg: 'ES256', kid }).sign(rogue.privateKey);
    await expectInvalid(await post(await sign('rogue-1')));
    expect(issuer.jwksFetches).toBe(before + 1);
    await expectInvalid(await post(await sign('rogue-2')));
    expect(issuer.jwksFetches).toBe(before + 1);
  });

  it('tells the operator why, through onRejected, and never the client', () => {
    expect(rejected.some((reason) => /aud/.test(reason))).toBe(true);
    expect(rejected.some((reason) => /iss/.test(reason))).toBe(true);
  });
});

/** A raw 2026-07-28 request, with the headers that era requires. */
function modernPost(token: string, id: number, method: string, params: Record<string, unknown> = {}, name?: string): Promise<Response> {
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  if (name !== undefined) headers['mcp-name'] = name;
  return post(token, { jsonrpc: '2.0', id, method, params: { ...params, _meta } }, url, headers);
}
const callTool = (token: string, name: string) => modernPost(token, 2, 'tools/call', { name, arguments: {} }, name);

describe('scopes per operation', () => {
  it('lists hide the tools whose scopes the token lacks', async () => {
    const tools = async (token: string) => ((await (await modernPost(token, 3, 'tools/list')).json()).result.tools as { name: string }[]).map((t) => t.name);
    expect(await tools(await aliceToken())).toEqual(['whoami', 'later', 'secret']);
    expect(await tools(await aliceToken('mcp:tools mcp:admin'))).toEqual(['whoami', 'admin_reset', 'later', 'secret']);
    expect(await tools(await aliceToken('mcp:admin'))).toEqual(['admin_reset']); // its own scopes replace the default
  });

  it('a call without the scopes is 403 insufficient_scope naming them (and the relevant ones granted)', async () => {
    const response = await callTool(await aliceToken(), 'admin_reset');
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", resource_metadata="${metadataUrl()}", scope="mcp:tools mcp:admin"`);
    expect(extractWWWAuthenticateParams(response)).toMatchObject({ error: 'insufficient_scope', scope: 'mcp:tools mcp:admin' });
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'Forbidden: this operation needs the scope mcp:admin' } });
    const none = await callTool(await aliceToken('mcp:admin'), 'whoami');
    expect([none.status, extractWWWAuthenticateParams(none).scope]).toEqual([403, 'mcp:tools']);
    const allowed = await callTool(await aliceToken('mcp:tools mcp:admin'), 'admin_reset');
    expect((await allowed.json()).result.content).toEqual([{ type: 'text', text: 'reset' }]);
  });

  it('an extension method without its scopes is the same 403 step-up, in both eras', async () => {
    const refused = await modernPost(await aliceToken(), 5, 'acme/reset');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", resource_metadata="${metadataUrl()}", scope="mcp:tools mcp:admin"`);
    expect(await refused.json()).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'Forbidden: this operation needs the scope mcp:admin' } });
    const token = await aliceToken();
    const init = await post(token);
    const session = init.headers.get('mcp-session-id')!;
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await post(token, { jsonrpc: '2.0', method: 'notifications/initialized' }, url, headers);
    const old = await post(token, { jsonrpc: '2.0', id: 6, method: 'acme/reset', params: {} }, url, headers);
    expect([old.status, extractWWWAuthenticateParams(old).error]).toEqual([403, 'insufficient_scope']);
    const allowed = await modernPost(await aliceToken('mcp:tools mcp:admin'), 7, 'acme/reset');
    expect((await allowed.json()).result).toMatchObject({ reset: true });
  });

  it('a primitive no scope applies to stays open to any valid token', async () => {
    const read = await modernPost(await aliceToken('mcp:admin'), 4, 'resources/read', { uri: 'docs://public' }, 'docs://public');
    expect((await read.json()).result.contents[0].text).toBe('public, no scope');
  });
});

describe("state is per user: the principal is the token's iss + sub", () => {
  const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
  const sessionOf = async (token: string) => (await post(token)).headers.get('mcp-session-id')!;

  it("bob cannot use alice's 2025 session id", async () => {
    const alice = await aliceToken();
    const bob = await issuer.clientToken('bob-app', url, 'mcp:tools');
    const session = await sessionOf(alice);
    expect(session).toBeTruthy();
    const ping = { jsonrpc: '2.0', id: 5, method: 'ping' };
    expect((await post(alice, ping, url, { ...LEGACY, 'mcp-session-id': session })).status).toBe(200);
    expect((await post(bob, ping, url, { ...LEGACY, 'mcp-session-id': session })).status).toBe(404);
  });

  it("bob cannot resume alice's stream, even with her session id and the Last-Event-ID", async () => {
    const alice = await aliceToken();
    const bob = await issuer.clientToken('bob-app', url, 'mcp:tools');
    const session = await sessionOf(alice);
    const headers = { ...LEGACY, 'mcp-session-id': session };
    const primed = await (await post(alice, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'secret', arguments: {} } }, url, headers)).text();
    const eventId = /^id: (\S+)$/m.exec(primed)![1]!;
    await new Promise((resolve) => setTimeout(resolve, 60));
    const resume = (token: string) =>
      fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, ...headers, 'last-event-id': eventId } });
    const stolen = await resume(bob);
    expect(stolen.status).toBe(404);
    expect(await stolen.text()).not.toContain('secret result');
    const own = await resume(alice);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('secret result for alice-app');
  });

  it("bob cannot read alice's task", async () => {
    const alice = await aliceToken();
    const bob = await issuer.clientToken('bob-app', url, 'mcp:tools');
    const [aliceSession, bobSession] = await Promise.all([sessionOf(alice), sessionOf(bob)]);
    const started = await (await post(alice, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'later', arguments: {}, task: { ttl: 60_000 } } }, url, { ...LEGACY, 'mcp-session-id': aliceSession })).json();
    const taskId = started.result?.task?.taskId;
    expect(typeof taskId).toBe('string');
    const get = (token: string, session: string) => post(token, { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { taskId } }, url, { ...LEGACY, 'mcp-session-id': session }).then((r) => r.json());
    expect((await get(alice, aliceSession)).result).toMatchObject({ taskId });
    expect((await get(bob, bobSession)).error).toMatchObject({ code: -32602 });
  });
});
