/**
 * examples/auth over real HTTP: the 401 challenge, RFC 9728 metadata as the SDK v1 client discovers
 * it, the 403 scope refusal, and an authorized SDK client whose tool sees the user in ctx.scope.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer } from '../../examples/auth/server.js';

let server: Awaited<ReturnType<typeof startAuthServer>>;
let origin: string;
beforeAll(async () => {
  server = await startAuthServer({ port: 0 });
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server.close();
});

const initialize = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const post = (authorization?: string) =>
  fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
    body: initialize,
  });

describe('auth example', () => {
  it('answers 401 with a Bearer challenge that points to the metadata', async () => {
    const response = await post();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource", scope="mcp:tools"`,
    );
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Unauthorized: a bearer token is required' } });
    // The SDK reads the challenge the way its OAuth flow does.
    expect(extractWWWAuthenticateParams(response)).toEqual({
      resourceMetadataUrl: new URL(`${origin}/.well-known/oauth-protected-resource`),
      scope: 'mcp:tools',
      error: undefined,
    });
  });

  it('answers 401 invalid_token for an unknown token and 403 insufficient_scope for a token without mcp:tools', async () => {
    const invalid = await post('Bearer nope');
    expect(invalid.status).toBe(401);
    expect(extractWWWAuthenticateParams(invalid).error).toBe('invalid_token');
    const bob = await post('Bearer demo-token-bob');
    expect(bob.status).toBe(403);
    expect(extractWWWAuthenticateParams(bob)).toMatchObject({ error: 'insufficient_scope', scope: 'mcp:tools' });
    expect((await post('Basic YWxpY2U6eA==')).status).toBe(401);
  });

  it('serves RFC 9728 protected-resource metadata, found by the SDK with and without the challenge', async () => {
    const expected = {
      resource: server.url,
      authorization_servers: ['https://auth.example.com'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:tools'],
      resource_name: 'MiniMCP auth example',
    };
    const response = await fetch(`${origin}/.well-known/oauth-protected-resource`);
    expect([response.status, response.headers.get('content-type')]).toEqual([200, 'application/json']);
    expect(await response.json()).toEqual(expected);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(await post());
    expect(await discoverOAuthProtectedResourceMetadata(server.url, { resourceMetadataUrl })).toEqual(expected);
    expect(await discoverOAuthProtectedResourceMetadata(server.url)).toEqual(expected); // path-aware well-known URL
    expect((await fetch(`${origin}/.well-known/oauth-protected-resource`, { method: 'POST' })).status).toBe(405);
  });

  it('lets an authorized SDK client call a tool that sees the user in ctx.scope', async () => {
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: 'Bearer demo-token-alice' } },
    }));
    try {
      expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: 'Alice (alice)' }]);
    } finally {
      await client.close();
    }
  });

  it('refuses the SDK client that has no token', async () => {
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toThrow(/401|Unauthorized/);
  });
});
