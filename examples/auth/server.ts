/**
 * Bearer-token authorization on plain node:http, as the MCP authorization spec has a resource server do it:
 *
 * - `/mcp` needs `Authorization: Bearer <token>`. The scope factory checks the token before the body is
 *   read and puts the caller in `ctx.scope.user`. Without a valid token the answer is 401 with a
 *   `WWW-Authenticate` challenge that points to the metadata below. A token without the `mcp:tools`
 *   scope gets 403 `insufficient_scope`.
 * - `/.well-known/oauth-protected-resource` (and the RFC 9728 path form `.../oauth-protected-resource/mcp`)
 *   serves the protected-resource metadata, which tells clients where to get a token.
 *
 * The tokens are a static demo map. A real server verifies a JWT from its authorization server
 * (signature, `iss`, `aud` equal to this resource, `exp`) or introspects the token, and nothing here changes.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, McpError, MiniMCP } from '../../src/index.js';
import { createNodeHandler } from '../../src/transports/http/node.js';

export interface User {
  id: string;
  name: string;
  scopes: string[];
}

export const DEMO_TOKENS: Readonly<Record<string, User>> = {
  'demo-token-alice': { id: 'alice', name: 'Alice', scopes: ['mcp:tools'] },
  'demo-token-bob': { id: 'bob', name: 'Bob', scopes: [] },
};
const REQUIRED_SCOPE = 'mcp:tools';

export function createAuthMcp(): MiniMCP<{ user: User }> {
  // The principal: MRTR state and per-principal quotas are bound to the verified user (docs/security.md).
  const mcp = new MiniMCP<{ user: User }>({ name: 'minimcp-auth', version: '1.0.0', principal: (scope) => scope?.user.id });
  mcp.tool('whoami', { description: 'Who the bearer token belongs to' }, (_args, ctx) => `${ctx.scope.user.name} (${ctx.scope.user.id})`);
  return mcp;
}

export interface StartOptions {
  port?: number;
  host?: string;
  /** Where clients get tokens; listed in the metadata. */
  authorizationServer?: string;
}

export async function startAuthServer(options: StartOptions = {}): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const { port = 0, host = '127.0.0.1', authorizationServer = 'https://auth.example.com' } = options;
  let origin = ''; // known once listening (port 0 picks one)
  const metadata = () => ({
    resource: `${origin}/mcp`,
    authorization_servers: [authorizationServer],
    bearer_methods_supported: ['header'],
    scopes_supported: [REQUIRED_SCOPE],
    resource_name: 'MiniMCP auth example',
  });

  const refuse = (status: 401 | 403, challenge: string, message: string): McpError =>
    Object.assign(new McpError(ErrorCode.InvalidRequest, message, undefined, status), {
      headers: { 'www-authenticate': `Bearer ${challenge}resource_metadata="${origin}/.well-known/oauth-protected-resource", scope="${REQUIRED_SCOPE}"` },
    });

  const handleMcp = createNodeHandler(createAuthMcp(), {
    scope: (req: IncomingMessage) => {
      const match = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? '');
      if (!match) throw refuse(401, '', 'Unauthorized: a bearer token is required');
      const user = Object.hasOwn(DEMO_TOKENS, match[1]!) ? DEMO_TOKENS[match[1]!] : undefined;
      if (!user) throw refuse(401, 'error="invalid_token", ', 'Unauthorized: the token is invalid or expired');
      if (!user.scopes.includes(REQUIRED_SCOPE)) throw refuse(403, 'error="insufficient_scope", ', 'Forbidden: the token lacks the mcp:tools scope');
      return { user };
    },
  });

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/mcp') return handleMcp(req, res);
    if (path === '/.well-known/oauth-protected-resource' || path === '/.well-known/oauth-protected-resource/mcp') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return res.writeHead(405, { allow: 'GET, HEAD' }).end();
      // Public and read by browser-based clients too (MCP Inspector), hence the CORS header.
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      return res.end(JSON.stringify(metadata()));
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    server,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
