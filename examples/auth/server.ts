/**
 * The math example behind minimcp/auth: an OAuth 2.1 resource server, as the MCP authorization spec
 * has one. Every request needs a JWT access token from `issuer` whose audience is this server's URL;
 * tools need the scope `mcp:tools`. The Protected Resource Metadata at
 * `/.well-known/oauth-protected-resource/mcp` tells clients where to get one.
 */
import { createServer } from 'node:net';
import { oauthResourceServer } from '../../src/auth/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { createMathServer } from '../math/server.js';
import { EXAMPLE_SCOPES, startLocalAuthorizationServer } from './authorization-server.js';

export interface AuthExampleOptions {
  /** Default 0: a free port. */
  port?: number;
  /** The authorization server to trust; default: a local one started beside the MCP server. */
  issuer?: string;
}

export interface AuthExample extends RunningServer {
  /** The issuer the server trusts. */
  readonly issuer: string;
  /** The local authorization server, when this example started it. */
  readonly localIssuer: boolean;
}

/** The card tells clients a bearer token is needed (how to get one is in the Protected Resource Metadata). */
const BEARER = {
  name: 'Authorization',
  description: 'An OAuth access token from the authorization server the Protected Resource Metadata names.',
  isRequired: true,
  isSecret: true,
  value: 'Bearer {token}',
  variables: { token: { isRequired: true, isSecret: true } },
};

/** The canonical URI must name the real port, so port 0 is resolved before serving. */
const freePort = () => new Promise<number>((resolve, reject) => {
  const probe = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});

export async function startAuthExample(options: AuthExampleOptions = {}): Promise<AuthExample> {
  const port = options.port || (await freePort());
  const local = options.issuer === undefined ? await startLocalAuthorizationServer() : undefined;
  const issuer = options.issuer ?? local!.issuer;
  const resource = `http://127.0.0.1:${port}/mcp`;
  // Tools need mcp:tools; the prompt and the resources are open to any valid token.
  const mcp = createMathServer({ scopes: ({ kind }) => (kind === 'tool' ? EXAMPLE_SCOPES : undefined) });
  const auth = oauthResourceServer({ issuer, resource, scopes: EXAMPLE_SCOPES, resourceName: 'MiniMCP math (auth example)' });
  const running = await serve(mcp, {
    port,
    host: '127.0.0.1',
    auth,
    // The Server Card is public: no token needed to read it, and none is ever in it. Its URL is the
    // canonical one the tokens name, never one taken from a request's Host.
    card: { name: 'com.example/minimcp-math-auth', url: resource, headers: [BEARER] },
    // The MCP Inspector's page calls from its own origin.
    cors: { origins: ['http://localhost:6274', 'http://127.0.0.1:6274'] },
  });
  return {
    ...running,
    issuer,
    localIssuer: local !== undefined,
    close: async () => {
      await running.close();
      await local?.close();
    },
  };
}
