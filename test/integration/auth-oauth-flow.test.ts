/**
 * The official SDK v1 client's own OAuth support against MiniMCP behind minimcp/auth and a real
 * authorization server (oidc-provider): 401 -> Protected Resource Metadata discovery -> authorization
 * server discovery -> dynamic client registration -> authorization code with PKCE S256 (login and
 * consent driven in code) -> a token bound to the resource -> tool calls -> a 403 insufficient_scope
 * the client steps up from, to a token with the wider scope.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthResourceServer } from '../../src/auth/index.js';
import { MiniMCP } from '../../src/index.js';
import { createNodeHandler } from '../../src/transports/http/node.js';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';

const REDIRECT = 'http://127.0.0.1:9/callback'; // never contacted: the user agent stops at the redirect

/** An OAuth client as an app would write it, whose "browser" is the issuer's scripted user agent. */
class ScriptedProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** The authorization URLs the client opened, and the redirect each ended at. */
  readonly opened: URL[] = [];
  pending: Promise<URL> | undefined;

  constructor(private readonly issuer: TestIssuer) {}

  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'scripted', redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.opened.push(url);
    this.pending = this.issuer.authorize(url, REDIRECT);
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }

  /** The code of the last authorization, once the scripted user agent reached the redirect. */
  async code(): Promise<string> {
    const redirect = await this.pending!;
    const code = redirect.searchParams.get('code');
    if (!code) throw new Error(`no code in ${redirect}`);
    return code;
  }
}

let issuer: TestIssuer;
let server: Server;
let url: string;
const requests: string[] = [];

beforeAll(async () => {
  // alice may have both scopes; the client asks only for what the challenges name.
  issuer = await startIssuer({ grants: { alice: ['mcp:tools', 'mcp:admin'] } });
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const auth = oauthResourceServer({ issuer: issuer.issuer, resource: url, scopes: ['mcp:tools'] });
  const mcp = new MiniMCP({ name: 'oauth-flow', version: '1.0.0', scopes: ['mcp:tools'] });
  mcp.tool('whoami', {}, (_args, ctx) => `${ctx.auth?.subject} via ${ctx.auth?.clientId}`);
  mcp.tool('admin_reset', { scopes: ['mcp:tools', 'mcp:admin'] }, () => 'reset');
  const handler = createNodeHandler(mcp, { auth });
  server.on('request', (req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization ? 'with token' : 'no token'}`);
    handler(req, res);
  });
}, 30_000);
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await issuer?.close();
});

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { text: string }[])[0]!.text;

describe('the SDK v1 client OAuth flow against MiniMCP and oidc-provider', () => {
  const provider = () => new ScriptedProvider(issuer);
  let oauth: ScriptedProvider;

  it('discovers, registers, authorizes with PKCE S256 and calls a tool with a token bound to the resource', async () => {
    oauth = provider();
    const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: oauth });
    await expect(new Client({ name: 'sdk-v1', version: '1.0.0' }).connect(first)).rejects.toThrow(UnauthorizedError);
    expect(requests[0]).toMatch(/^POST \/mcp no token$/); // the 401 started it
    expect(requests).toContain('GET /.well-known/oauth-protected-resource/mcp no token'); // PRM from the challenge
    expect(oauth.client?.client_id).toBeTruthy(); // dynamic client registration at oidc-provider
    const authorization = oauth.opened[0]!;
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      response_type: 'code', code_challenge_method: 'S256', resource: url, scope: 'mcp:tools', client_id: oauth.client!.client_id,
    });
    await first.finishAuth(await oauth.code());
    const token = decodeJwt(oauth.saved!.access_token);
    expect(token).toMatchObject({ iss: issuer.issuer, sub: 'alice', aud: url, scope: 'mcp:tools', client_id: oauth.client!.client_id });

    const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: oauth }));
    try {
      expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe(`alice via ${oauth.client!.client_id}`);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']); // admin_reset needs mcp:admin
    } finally {
      await client.close();
    }
  });

  it('steps up after a 403 insufficient_scope: a new authorization for the named scopes, then the call goes through', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: oauth });
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(transport);
    try {
      await expect(client.callTool({ name: 'admin_reset', arguments: {} })).rejects.toThrow(UnauthorizedError);
      const stepUp = oauth.opened.at(-1)!;
      expect(stepUp.searchParams.get('scope')).toBe('mcp:tools mcp:admin'); // what the 403 challenge named
      await transport.finishAuth(await oauth.code());
      expect(decodeJwt(oauth.saved!.access_token).scope).toBe('mcp:tools mcp:admin');
      expect(text(await client.callTool({ name: 'admin_reset', arguments: {} }))).toBe('reset');
    } finally {
      await client.close();
    }
  });
});
