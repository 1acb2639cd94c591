/**
 * A real OAuth 2.1 / OpenID authorization server for the tests: oidc-provider (OpenID Certified),
 * in process on 127.0.0.1, with resource indicators (RFC 8707) issuing JWT access tokens, dynamic
 * client registration, introspection and revocation. Login and consent are driven in code: the
 * interaction page logs in `issuer.user` and grants the requested scopes that user may have.
 *
 * Its signing keys are made here, so tests can also sign tokens the server would never issue
 * (wrong issuer, expired, unknown kid) with the very key the JWKS publishes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface IssuerOptions {
  /** Scopes each user may be granted (consent grants the requested ones among them). Default: everyone gets every scope. */
  grants?: Record<string, string[]>;
  /** Every resource-server scope this issuer knows. */
  scopes?: string[];
  /** Access token lifetime in seconds. Default 300. */
  accessTokenTtl?: number;
  /** Default 'jwt'; 'opaque' tokens can only be checked by introspection. */
  accessTokenFormat?: 'jwt' | 'opaque';
  /**
   * Issue a refresh token to every client registered for the refresh_token grant, as API-focused
   * providers do. Default false: OpenID's rule, only when `offline_access` was granted.
   */
  refreshTokens?: boolean;
  /** Extra claims in the access tokens of each account or client (custom claims an IdP rule would add). */
  extraClaims?: Record<string, Record<string, unknown>>;
}

export interface TestIssuer {
  /** The issuer identifier (http://127.0.0.1:<port>). */
  readonly issuer: string;
  /** The key the provider signs access tokens with (ES256), and its kid. */
  readonly signingKey: { privateKey: CryptoKey; kid: string };
  /** Requests to the JWKS endpoint so far. */
  readonly jwksFetches: number;
  /** Requests to the metadata documents so far. */
  readonly discoveryFetches: number;
  /** Requests to the introspection endpoint so far. */
  readonly introspections: number;
  /** The resource server's own client at this issuer (for introspection). */
  readonly resourceServerClient: { clientId: string; clientSecret: string };
  /** Who the interaction page logs in. */
  user: string;
  /**
   * A client_credentials token for `resource` (confidential clients 'alice-app' and 'bob-app'). With a
   * `dpop` proof (for POST `tokenEndpoint`) the token is DPoP-bound: its `cnf.jkt` names the proof's key.
   */
  clientToken(client: 'alice-app' | 'bob-app', resource: string, scope: string, dpop?: string): Promise<string>;
  /** Where tokens are asked for (the `htu` of a DPoP proof for a token request). */
  readonly tokenEndpoint: string;
  /** Plays the user agent from an authorization URL to the client's redirect; returns that redirect URL. */
  authorize(url: string | URL, redirectUri: string): Promise<URL>;
  /** RFC 7009 revocation of a token issued to a static client. */
  revoke(client: 'alice-app' | 'bob-app', token: string): Promise<void>;
  close(): Promise<void>;
}

const SECRETS = { 'alice-app': 'alice-secret-0123456789', 'bob-app': 'bob-secret-0123456789', 'mcp-server': 'mcp-server-secret-0123456789' } as const;

async function signingKeys(): Promise<{ jwks: JWK[]; es256: { privateKey: CryptoKey; kid: string } }> {
  const es = await generateKeyPair('ES256', { extractable: true });
  const rs = await generateKeyPair('RS256', { extractable: true });
  const es256 = { ...(await exportJWK(es.privateKey)), kid: 'es-1', alg: 'ES256', use: 'sig' };
  const rs256 = { ...(await exportJWK(rs.privateKey)), kid: 'rs-1', alg: 'RS256', use: 'sig' };
  return { jwks: [rs256, es256], es256: { privateKey: es.privateKey, kid: 'es-1' } };
}

function providerConfig(jwks: JWK[], options: IssuerOptions) {
  const scopes = options.scopes ?? ['mcp:tools', 'mcp:admin'];
  const clients = (Object.keys(SECRETS) as (keyof typeof SECRETS)[]).map((client_id) => ({
    client_id,
    client_secret: SECRETS[client_id],
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: scopes.join(' '),
  }));
  return {
    clients,
    jwks: { keys: jwks },
    cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
    scopes: ['openid', 'offline_access', ...scopes],
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // DPoP (RFC 9449): a token request with a DPoP proof gets a token bound to its key (cnf.jkt).
      dPoP: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => ({
          scope: scopes.join(' '),
          audience: resourceIndicator,
          accessTokenTTL: options.accessTokenTtl ?? 300,
          accessTokenFormat: options.accessTokenFormat ?? 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    ...(options.extraClaims && {
      extraTokenClaims: (_ctx: unknown, token: { accountId?: string; clientId?: string }) => options.extraClaims?.[token.accountId ?? token.clientId ?? ''],
    }),
    ...(options.refreshTokens && { issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(grant: string): boolean }) => client.grantTypeAllowed('refresh_token') }),
    ttl: { AccessToken: options.accessTokenTtl ?? 300, ClientCredentials: options.accessTokenTtl ?? 300 },
  };
}

/** The login and consent page: logs in `state.user` and grants what was asked among that user's scopes. */
async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse, state: { user: string }, grants: IssuerOptions['grants']): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const accountId = state.user;
  const allowed = grants?.[accountId];
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId: details.params.client_id as string });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant!.addResourceScope(indicator, scopes.filter((s) => allowed === undefined || allowed.includes(s)).join(' '));
  }
  const grantId = await grant!.save();
  await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * Dynamic registration, minus the `scope` the client registers with. The SDK registers with the scope
 * of the first challenge, and oidc-provider then limits the client to it, so a later step-up would be
 * refused by the authorization server. Hosted providers (Auth0, Keycloak, Entra ID) decide what a
 * client may get per API and user instead; dropping it here gives that behaviour.
 */
async function registerWithoutScope(req: IncomingMessage, res: ServerResponse, issuer: string): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const { scope: _scope, ...metadata } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  const answer = await fetch(`${issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-scope-dropped': '1' },
    body: JSON.stringify(metadata),
  });
  res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
  res.end(await answer.text());
}

export async function startIssuer(options: IssuerOptions = {}): Promise<TestIssuer> {
  const { jwks, es256 } = await signingKeys();
  const state = { user: 'alice' };
  const counts = { jwks: 0, discovery: 0, introspections: 0 };
  let provider!: Provider;
  let callback!: (req: IncomingMessage, res: ServerResponse) => void;
  let issuer = '';
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/jwks') counts.jwks++;
    if (path === '/token/introspection') counts.introspections++;
    if (path.startsWith('/.well-known/')) counts.discovery++;
    if (req.method === 'POST' && path === '/reg' && !req.headers['x-scope-dropped']) {
      void registerWithoutScope(req, res, issuer);
      return;
    }
    if (path.startsWith('/interaction/')) {
      interact(provider, req, res, state, options.grants).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    callback(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = new Provider(issuer, providerConfig(jwks, options) as never);
  callback = provider.callback() as never;
  const basic = (client: keyof typeof SECRETS) => `Basic ${Buffer.from(`${client}:${SECRETS[client]}`).toString('base64')}`;

  return {
    issuer,
    signingKey: es256,
    get jwksFetches() {
      return counts.jwks;
    },
    get discoveryFetches() {
      return counts.discovery;
    },
    get introspections() {
      return counts.introspections;
    },
    resourceServerClient: { clientId: 'mcp-server', clientSecret: SECRETS['mcp-server'] },
    get user() {
      return state.user;
    },
    set user(value: string) {
      state.user = value;
    },
    tokenEndpoint: `${issuer}/token`,
    async clientToken(client, resource, scope, dpop) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded', ...(dpop === undefined ? {} : { dpop }) },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
      });
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`token request failed: ${body.error} ${body.error_description}`);
      return body.access_token;
    },
    async authorize(url, redirectUri) {
      const jar = new Map<string, string>();
      let next = String(url);
      for (let hop = 0; hop < 12; hop++) {
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        const response = await fetch(next, { redirect: 'manual', headers: cookie ? { cookie } : {} });
        for (const line of response.headers.getSetCookie()) {
          const pair = line.split(';')[0]!;
          const eq = pair.indexOf('=');
          jar.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
        const location = response.headers.get('location');
        const text = await response.text();
        if (!location) throw new Error(`the authorization stopped at ${response.status} ${next}: ${text.slice(0, 300)}`);
        const target = new URL(location, next);
        if (target.href.startsWith(redirectUri)) return target;
        next = target.href;
      }
      throw new Error('too many redirects');
    },
    async revoke(client, token) {
      await fetch(`${issuer}/token/revocation`, {
        method: 'POST',
        headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }),
      });
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
