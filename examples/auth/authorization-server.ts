/**
 * A local OAuth 2.1 authorization server for the auth example: oidc-provider (OpenID Certified) on
 * 127.0.0.1, for trying the flow on one machine only. It has dynamic client registration (how the MCP
 * Inspector and SDK clients sign up), authorization code + PKCE, client credentials, resource
 * indicators (every token is bound to the MCP server it was asked for) and JWT access tokens. Its
 * login page accepts any user name and password: it is a demo, never a real identity provider.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export const EXAMPLE_SCOPES = ['mcp:tools'];

export interface LocalAuthorizationServer {
  /** The issuer identifier: what the MCP server trusts (`AUTH_ISSUER`). */
  readonly issuer: string;
  readonly server: Server;
  close(): Promise<void>;
}

async function signingKeys() {
  const es = await generateKeyPair('ES256', { extractable: true });
  const rs = await generateKeyPair('RS256', { extractable: true });
  return [
    { ...(await exportJWK(rs.privateKey)), kid: 'rs-1', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(es.privateKey)), kid: 'es-1', alg: 'ES256', use: 'sig' },
  ];
}

/** `port` 0 picks a free one; keys are new on every start, so tokens of an earlier run are refused. */
export async function startLocalAuthorizationServer(port = 0, host = '127.0.0.1'): Promise<LocalAuthorizationServer> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: await signingKeys() },
    cookies: { keys: [crypto.randomUUID()] },
    scopes: ['openid', 'offline_access', ...EXAMPLE_SCOPES],
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true }, // the built-in login and consent pages
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => ({
          scope: EXAMPLE_SCOPES.join(' '),
          audience: resourceIndicator,
          accessTokenTTL: 3600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  } as never);
  server.on('request', provider.callback() as never);
  return {
    issuer,
    server,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
