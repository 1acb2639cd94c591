/**
 * Issue 36: a remote upstream behind OAuth is called with the gateway's own token (client-credentials
 * grant against a real oidc-provider issuer), never with the caller's. The token is kept and shared,
 * got again once when the upstream refuses it (revoked), and a refusal that persists fails with -32603.
 * The upstream is a MiniMCP behind `minimcp/auth` checking opaque tokens by introspection (so a revoked
 * token is refused at once); the gateway is behind `minimcp/auth` too, for the callers' tokens.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthResourceServer } from '../../src/auth/index.js';
import { runProxy } from '../../src/dev/proxy-command.js';
import { ClientCredentials, HttpUpstream, type Proxied } from '../../src/gateway/index.js';
import { MiniMCP } from '../../src/index.js';
import { createNodeHandler, serve, type RunningServer } from '../../src/transports/http/node.js';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';

const ALICE_SECRET = 'alice-secret-0123456789';
let issuer: TestIssuer;
let upstreamServer: Server;
let upstreamUrl: string;
/** The bearer tokens the upstream was sent, in order. */
const seen: string[] = [];
const upstreamState = { refuseAll: false };
let gateway: RunningServer;
let proxied: Proxied;
let tokenRequests = 0;

/** The global fetch, counting the requests that reach the token endpoint. */
const countingFetch: typeof fetch = (input, init) => {
  if (String(input).endsWith('/token')) tokenRequests++;
  return fetch(input, init);
};

beforeAll(async () => {
  issuer = await startIssuer({ accessTokenFormat: 'opaque' });
  upstreamServer = createServer();
  await new Promise<void>((resolve) => upstreamServer.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstreamServer.address() as AddressInfo).port}/mcp`;
  const upstream = new MiniMCP({ name: 'upstream', version: '1.0.0' });
  upstream.tool('whoami', {}, (_args, ctx) => `${ctx.auth?.subject}`);
  const upstreamAuth = oauthResourceServer({ issuer: issuer.issuer, resource: upstreamUrl, introspection: issuer.resourceServerClient, cacheTtlMs: 1 });
  const handler = createNodeHandler(upstream, { auth: upstreamAuth });
  upstreamServer.on('request', (req, res) => {
    seen.push(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!upstreamState.refuseAll) return void handler(req, res);
    res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
  });

  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {} });
  const oauth = { issuer: issuer.issuer, clientId: 'alice-app', clientSecret: ALICE_SECRET, resource: upstreamUrl, scope: 'mcp:tools', fetch: countingFetch };
  // A static Authorization header (any case) is replaced by the client's token, never sent beside it.
  proxied = await mcp.proxy({ url: upstreamUrl, era: 'stateless', oauth, headers: { Authorization: 'Bearer static-one' }, log: () => {} });
  const gatewayPort = 0;
  gateway = await serve(mcp, { port: gatewayPort, auth: oauthResourceServer({ issuer: issuer.issuer, resource: 'http://gateway.test/mcp', introspection: issuer.resourceServerClient }) });
}, 30_000);

afterAll(async () => {
  await proxied?.close();
  await gateway?.close();
  upstreamServer?.closeAllConnections();
  await new Promise((resolve) => upstreamServer?.close(resolve));
  await issuer?.close();
});

/** A 2026 tools/call of the gateway's `whoami` with the caller's own token. */
async function callWhoami(callerToken: string): Promise<{ result?: { content: { text: string }[] }; error?: { code: number; message: string } }> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${callerToken}`,
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami',
    },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: { name: 'whoami', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

describe('the gateway as an OAuth client of its upstream', () => {
  it("reaches the upstream with its own client's token, never the caller's", async () => {
    const callerToken = await issuer.clientToken('bob-app', 'http://gateway.test/mcp', 'mcp:tools');
    const answer = await callWhoami(callerToken);
    expect(answer.result?.content).toEqual([{ type: 'text', text: 'alice-app' }]);
    expect(seen).not.toContain(callerToken);
    expect(seen.some((token) => token.includes('static-one'))).toBe(false);
    expect(new Set(seen).size).toBe(1); // one token for discover and the call: kept, not asked for each request
    expect(tokenRequests).toBe(1);
  });

  it('gets a new token once when the upstream refuses a revoked one, and goes on', async () => {
    const callerToken = await issuer.clientToken('bob-app', 'http://gateway.test/mcp', 'mcp:tools');
    const old = seen.at(-1) as string;
    await issuer.revoke('alice-app', old);
    await new Promise((resolve) => setTimeout(resolve, 20)); // past the upstream's 1 ms introspection cache
    const before = tokenRequests;
    const answer = await callWhoami(callerToken);
    expect(answer.result?.content).toEqual([{ type: 'text', text: 'alice-app' }]);
    expect(tokenRequests).toBe(before + 1);
    expect(seen.at(-1)).not.toBe(old);
  });

  it('fails the call with -32603 when the new token is refused too, having asked for one new token', async () => {
    const callerToken = await issuer.clientToken('bob-app', 'http://gateway.test/mcp', 'mcp:tools');
    const before = tokenRequests;
    upstreamState.refuseAll = true;
    try {
      const answer = await callWhoami(callerToken);
      expect(answer.error?.code).toBe(-32603);
      expect(answer.error?.message).toMatch(/refused the gateway's access token/);
      expect(tokenRequests).toBe(before + 1);
    } finally {
      upstreamState.refuseAll = false;
    }
    expect((await callWhoami(callerToken)).result?.content).toEqual([{ type: 'text', text: 'alice-app' }]);
  });
});

describe('minimcp proxy --upstream-client-id', () => {
  it("serves the upstream with the gateway's own client, the secret read from the environment", async () => {
    const argv = ['--port', '0', '--http', upstreamUrl, '--upstream-client-id', 'alice-app', '--upstream-client-secret-env', 'UPSTREAM_SECRET', '--upstream-issuer', issuer.issuer, '--upstream-scope', 'mcp:tools'];
    const running = await runProxy(argv, { UPSTREAM_SECRET: ALICE_SECRET });
    try {
      const response = await fetch(running.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
      });
      expect(((await response.json()) as { result: { content: unknown } }).result.content).toEqual([{ type: 'text', text: 'alice-app' }]);
    } finally {
      await running.close();
    }
  });
});

describe('ClientCredentials', () => {
  it('shares one token request among concurrent calls, and keeps the token', async () => {
    let asked = 0;
    const client = new ClientCredentials({
      tokenUrl: issuer.tokenEndpoint, clientId: 'alice-app', clientSecret: ALICE_SECRET, resource: upstreamUrl, authMethod: 'client_secret_post',
      fetch: (input, init) => (asked++, fetch(input, init)),
    });
    const tokens = await Promise.all(Array.from({ length: 5 }, () => client.token()));
    expect(new Set(tokens).size).toBe(1);
    expect(await client.token()).toBe(tokens[0]);
    expect(asked).toBe(1);
  });

  it('renews a token shortly before it expires', async () => {
    const shortLived = await startIssuer({ accessTokenFormat: 'opaque', accessTokenTtl: 2 });
    try {
      const client = new ClientCredentials({ issuer: shortLived.issuer, clientId: 'alice-app', clientSecret: ALICE_SECRET, resource: upstreamUrl });
      const first = await client.token();
      expect(await client.token()).toBe(first);
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // past half of the 2 s lifetime
      expect(await client.token()).not.toBe(first);
    } finally {
      await shortLived.close();
    }
  });

  it('never puts the secret in an error, and names the OAuth error', async () => {
    const wrong = 'wrong-secret-that-must-not-leak';
    const client = new ClientCredentials({ tokenUrl: issuer.tokenEndpoint, clientId: 'alice-app', clientSecret: wrong });
    const error = (await client.token().catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/refused client alice-app: 401 invalid_client/);
    expect(error.message).not.toContain(wrong);
    expect(JSON.stringify(error)).not.toContain(wrong);
  });

  it('bounds the token answer in bytes and in time', async () => {
    const big = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'x'.repeat(100_000) })));
    const silent = createServer(() => {});
    for (const server of [big, silent]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const at = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
    try {
      const large = new ClientCredentials({ tokenUrl: at(big), clientId: 'c', clientSecret: 's' });
      await expect(large.token()).rejects.toThrow(/over 65536 bytes/);
      const slow = new ClientCredentials({ tokenUrl: at(silent), clientId: 'c', clientSecret: 's', timeoutMs: 200 });
      await expect(slow.token()).rejects.toThrow(/no answer within 200 ms/);
    } finally {
      for (const server of [big, silent]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('refuses a token that is not a Bearer one, and reads expires_in sent as a string', async () => {
    const answers = [{ access_token: 'bound', token_type: 'DPoP', expires_in: 60 }, { access_token: 'a', token_type: 'bearer', expires_in: '3600' }, { access_token: 'b', token_type: 'Bearer' }];
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers.shift())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new ClientCredentials({ tokenUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, clientId: 'c', clientSecret: 's' });
      await expect(client.token()).rejects.toThrow(/a DPoP token, not a Bearer one/);
      expect(await client.token()).toBe('a');
      expect(await client.token()).toBe('a'); // kept for its hour, not asked again
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('an HttpUpstream whose token endpoint refuses it does not start, and says why', async () => {
    const upstream = new HttpUpstream({ url: upstreamUrl, era: 'stateless', oauth: { tokenUrl: issuer.tokenEndpoint, clientId: 'alice-app', clientSecret: 'nope-secret' }, log: () => {} });
    await expect(upstream.start()).rejects.toThrow(/refused client alice-app/);
  });
});
