/**
 * The official SDK v1 client's own OAuth support against MiniMCP behind minimcp/auth and a real
 * authorization server (oidc-provider): 401 -> Protected Resource Metadata discovery -> authorization
 * server discovery -> dynamic client registration -> authorization code with PKCE S256 (login and
 * consent driven in code) -> a token bound to the resource -> tool calls -> a 403 insufficient_scope
 * the client steps up from, to a token with the wider scope; and a short-lived access token the server
 * refuses once expired, which the client replaces with its refresh token, without the user.
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

  /** `grantTypes`: what the client registers for ('refresh_token' too, to be given refresh tokens). */
  constructor(private readonly issuer: TestIssuer, private readonly grantTypes = ['authorization_code']) {}

  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'scripted', redirect_uris: [REDIRECT], grant_types: this.grantTypes, response_types: ['code'], token_endpoint_auth_method: 'none' };
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

/** MiniMCP behind minimcp/auth trusting `from`, on a free port; logs each request's line to `log`. */
async function protectedServer(from: TestIssuer, log: string[], clockToleranceSeconds?: number): Promise<{ server: Server; url: string }> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const resource = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const auth = oauthResourceServer({ issuer: from.issuer, resource, scopes: ['mcp:tools'], ...(clockToleranceSeconds !== undefined && { clockToleranceSeconds }) });
  const mcp = new MiniMCP({ name: 'oauth-flow', version: '1.0.0', scopes: ['mcp:tools'] });
  mcp.tool('whoami', {}, (_args, ctx) => `${ctx.auth?.subject} via ${ctx.auth?.clientId}`);
  mcp.tool('admin_reset', { scopes: ['mcp:tools', 'mcp:admin'] }, () => 'reset');
  const handler = createNodeHandler(mcp, { auth });
  http.on('request', (req, res) => {
    log.push(`${req.method} ${req.url} ${req.headers.authorization ? 'with token' : 'no token'}`);
    handler(req, res);
  });
  return { server: http, url: resource };
}

async function stop(http: Server | undefined): Promise<void> {
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
}

beforeAll(async () => {
  // alice may have both scopes; the client asks only for what the challenges name.
  issuer = await startIssuer({ grants: { alice: ['mcp:tools', 'mcp:admin'] } });
  ({ server, url } = await protectedServer(issuer, requests));
}, 30_000);
afterAll(async () => {
  await stop(server);
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

describe('the SDK v1 client refreshes an expired access token', () => {
  const TTL_SECONDS = 3; // valid 2 to 3 s: the server allows no clock skew here
  let shortIssuer: TestIssuer;
  let short: { server: Server; url: string };

  beforeAll(async () => {
    shortIssuer = await startIssuer({ accessTokenTtl: TTL_SECONDS, refreshTokens: true });
    short = await protectedServer(shortIssuer, [], 0);
  }, 30_000);
  afterAll(async () => {
    await stop(short?.server);
    await shortIssuer?.close();
  });

  it('the server refuses the expired token; the client refreshes it with its refresh token and the next call succeeds', async () => {
    const oauth = new ScriptedProvider(shortIssuer, ['authorization_code', 'refresh_token']);
    // The token requests the client makes (its transport's fetch carries them too), by grant type.
    const grants: string[] = [];
    const recording: typeof fetch = (input, init) => {
      if (init?.body instanceof URLSearchParams && init.body.has('grant_type')) grants.push(init.body.get('grant_type')!);
      return fetch(input, init);
    };
    const first = new StreamableHTTPClientTransport(new URL(short.url), { authProvider: oauth, fetch: recording });
    await expect(new Client({ name: 'sdk-v1', version: '1.0.0' }).connect(first)).rejects.toThrow(UnauthorizedError);
    await first.finishAuth(await oauth.code());
    expect(oauth.saved?.refresh_token).toBeTruthy();
    const transport = new StreamableHTTPClientTransport(new URL(short.url), { authProvider: oauth, fetch: recording });
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(transport);
    try {
      const session = transport.sessionId;
      const expired = oauth.saved!.access_token;
      const exp = decodeJwt(expired).exp!;
      expect(exp - decodeJwt(expired).iat!).toBe(TTL_SECONDS);
      await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 100));
      const refused = await fetch(short.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${expired}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session! },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const opened = oauth.opened.length;
      grants.length = 0;

      expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe(`alice via ${oauth.client!.client_id}`);
      expect(grants).toEqual(['refresh_token']); // one refresh, no new authorization
      expect(oauth.opened).toHaveLength(opened);
      const renewed = decodeJwt(oauth.saved!.access_token);
      expect(oauth.saved!.access_token).not.toBe(expired);
      expect(renewed).toMatchObject({ sub: 'alice', aud: short.url, scope: 'mcp:tools' });
      expect(renewed.exp!).toBeGreaterThan(exp);
      expect(transport.sessionId).toBe(session); // the same user, so the same session goes on
    } finally {
      await client.close();
    }
  });
});
