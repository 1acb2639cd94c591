/**
 * Opaque access tokens by RFC 7662 introspection, against oidc-provider issuing opaque tokens bound to
 * this resource: an active token is served (and its answer cached), a revoked one is refused (at once
 * when it was never used, within cacheTtlMs when it was), one for another resource is refused, and
 * the cache never keeps an answer past the token's exp.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthResourceServer } from '../../src/auth/index.js';
import { MiniMCP } from '../../src/index.js';
import { createNodeHandler } from '../../src/transports/http/node.js';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';

let issuer: TestIssuer;
let server: Server;
let url: string;
const CACHE_TTL_MS = 300;
const rejected: string[] = [];

beforeAll(async () => {
  issuer = await startIssuer({ accessTokenFormat: 'opaque' });
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const auth = oauthResourceServer({ issuer: issuer.issuer, resource: url, introspection: issuer.resourceServerClient, cacheTtlMs: CACHE_TTL_MS,
    onRejected: (reason) => rejected.push(reason),
  });
  const mcp = new MiniMCP({ name: 'opaque', version: '1.0.0' });
  mcp.tool('whoami', {}, (_args, ctx) => `${ctx.auth?.subject} ${ctx.auth?.scopes.join(' ')}`);
  server.on('request', createNodeHandler(mcp, { auth }));
}, 30_000);
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await issuer?.close();
});

const whoami = (token: string, at = url) =>
  fetch(at, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami',
    },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: { name: 'whoami', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
  });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('opaque tokens by introspection', () => {
  it('serves an active token bound to this resource, and asks once while the answer is cached', async () => {
    const token = await issuer.clientToken('alice-app', url, 'mcp:tools');
    expect(token.split('.')).toHaveLength(1); // opaque: no JWT to verify locally
    const before = issuer.introspections;
    const response = await whoami(token);
    expect(response.status).toBe(200);
    expect((await response.json()).result.content).toEqual([{ type: 'text', text: 'alice-app mcp:tools' }]);
    expect((await whoami(token)).status).toBe(200);
    expect(issuer.introspections).toBe(before + 1);
  });

  it('refuses a token revoked before its first use', async () => {
    const token = await issuer.clientToken('alice-app', url, 'mcp:tools');
    await issuer.revoke('alice-app', token);
    expect((await whoami(token)).status).toBe(401);
    expect(rejected.at(-1)).toBe('the token is not active (introspection)');
  });

  it('refuses a token revoked after use once its cached answer ends (cacheTtlMs)', async () => {
    const token = await issuer.clientToken('alice-app', url, 'mcp:tools');
    expect((await whoami(token)).status).toBe(200);
    await issuer.revoke('alice-app', token);
    await sleep(CACHE_TTL_MS + 50);
    expect((await whoami(token)).status).toBe(401);
    expect(rejected.at(-1)).toBe('the token is not active (introspection)');
  });

  it('refuses an active token issued for another resource', async () => {
    const token = await issuer.clientToken('alice-app', 'https://other.example/mcp', 'mcp:tools');
    const response = await whoami(token);
    expect([response.status, response.headers.get('www-authenticate')]).toEqual([401, expect.stringContaining('error="invalid_token"')]);
  });

  it('remembers a refused token briefly: asking again about it costs the issuer nothing', async () => {
    const junk = `junk-${Date.now()}`;
    const before = issuer.introspections;
    for (let i = 0; i < 5; i++) expect((await whoami(junk)).status).toBe(401);
    expect(issuer.introspections).toBe(before + 1);
    expect(rejected.at(-1)).toBe('the token is not active (introspection) (remembered)');
  });

  it('asks at most maxPerSecond times a second: past it a new token is 503 with Retry-After, without asking', async () => {
    const capped = createServer();
    await new Promise<void>((resolve) => capped.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(capped.address() as AddressInfo).port}/mcp`;
    const auth = oauthResourceServer({ issuer: issuer.issuer, resource: at, introspection: { ...issuer.resourceServerClient, maxPerSecond: 2 } });
    capped.on('request', createNodeHandler(new MiniMCP({ name: 'capped', version: '1.0.0' }).tool('whoami', {}, () => 'me'), { auth }));
    try {
      const before = issuer.introspections;
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => whoami(`flood-${Date.now()}-${i}`, at)));
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses).toEqual([401, 401, 503, 503, 503, 503]);
      expect(answers.find((r) => r.status === 503)?.headers.get('retry-after')).toBe('1');
      expect(issuer.introspections).toBe(before + 2);
      // A token already verified is never held back by the cap.
      const token = await issuer.clientToken('alice-app', at, 'mcp:tools');
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await whoami(token, at)).status).toBe(200);
      for (let i = 0; i < 3; i++) await whoami(`flood-again-${i}`, at);
      expect((await whoami(token, at)).status).toBe(200);
    } finally {
      capped.closeAllConnections();
      await new Promise((resolve) => capped.close(resolve));
    }
  });

  it('checks the introspection options', () => {
    const options = { issuer: issuer.issuer, resource: url };
    expect(() => oauthResourceServer({ ...options, introspection: { ...issuer.resourceServerClient, maxPerSecond: 0 } })).toThrow(/maxPerSecond must be an integer >= 1/);
    expect(() => oauthResourceServer({ ...options, introspection: { ...issuer.resourceServerClient, refusalTtlMs: -1 } })).toThrow(/refusalTtlMs must be an integer >= 0/);
  });
});
