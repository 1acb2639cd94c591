/**
 * The `auth` option on every HTTP entry (serve(), the node handler, the fetch handler, Express, Hono,
 * Fastify): each serves the Protected Resource Metadata at both well-known paths, challenges a request
 * without a token, and hands a verified caller to the handler as ctx.auth. The scope factory runs after
 * authentication and receives the verified token (issue 32, item 2): the typed scope is built from its
 * claims, and a request without a valid token never reaches the factory. The tokens here come from a
 * custom `verify` (the JWT path is covered against a real issuer in auth-jwt.test.ts).
 */
import { createServer as createNetServer } from 'node:net';
import { createServer as createHttpServer, type Server } from 'node:http';
import { serve as honoServe } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpExpress } from '../../src/adapters/express.js';
import { mcpFastify } from '../../src/adapters/fastify.js';
import { mcpHono } from '../../src/adapters/hono.js';
import { oauthResourceServer, type AuthInfo, type ResourceServer } from '../../src/auth/index.js';
import { MiniMCP } from '../../src/index.js';
import { createFetchHandler } from '../../src/transports/http/fetch-handler.js';
import { createNodeHandler, serve } from '../../src/transports/http/node.js';

const ISSUER = 'https://issuer.example';

const freePort = () => new Promise<number>((resolve) => {
  const probe = createNetServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});

function authFor(resource: string): ResourceServer {
  return oauthResourceServer({
    issuer: ISSUER,
    resource,
    scopes: ['mcp:tools'],
    verify: (token) => {
      if (token !== 'good-alice') throw new Error('unknown token');
      return { sub: 'alice', scope: 'mcp:tools', client_id: 'app', team: 'blue', exp: Math.floor(Date.now() / 1000) + 300 };
    },
  });
}

interface TeamScope { user: string; team: string; via: string }

function createMcp(): MiniMCP<TeamScope> {
  const mcp = new MiniMCP<TeamScope>({ name: 'entries', version: '1.0.0' });
  mcp.tool('whoami', {}, (_args, ctx) => `${ctx.auth?.issuer} ${ctx.auth?.subject} ${ctx.auth?.clientId} | ${ctx.scope.user} ${ctx.scope.team} ${ctx.scope.via}`);
  return mcp;
}

/** Every token the scope factories were given, in order; a refused request must add none. */
const factoryCalls: string[] = [];
/** The typed scope, from the verified token's claims; `via` names what the entry handed the factory. */
function scopeOf(auth: AuthInfo, via: string): TeamScope {
  factoryCalls.push(auth.subject);
  return { user: auth.subject, team: String(auth.claims.team), via };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
const closeServer = (server: Server) => () => new Promise((resolve) => {
  server.closeAllConnections();
  server.close(resolve);
});

type Fetcher = (path: string, init?: RequestInit) => Promise<Response>;

/** Starts one entry on a free port with the auth option; returns a fetch bound to its origin. */
const ENTRIES: Record<string, () => Promise<Fetcher>> = {
  'serve()': async () => {
    const port = await freePort();
    const running = await serve(createMcp(), { port, auth: authFor(`http://127.0.0.1:${port}/mcp`), scope: (req, { auth }) => scopeOf(auth, req.method!) });
    closers.push(() => running.close());
    return (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init);
  },
  'createNodeHandler (mounted on every path)': async () => {
    const port = await freePort();
    const handler = createNodeHandler(createMcp(), { auth: authFor(`http://127.0.0.1:${port}/mcp`), scope: (req, { auth }) => scopeOf(auth, req.method!) });
    const server = createHttpServer(handler).listen(port, '127.0.0.1');
    closers.push(closeServer(server));
    return (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init);
  },
  'createFetchHandler (in process)': async () => {
    const handler = createFetchHandler(createMcp(), { auth: authFor('http://127.0.0.1/mcp'), scope: async (request, { auth }) => scopeOf(auth, request.method) });
    return (path, init) => handler(new Request(`http://127.0.0.1${path}`, init));
  },
  Express: async () => {
    const port = await freePort();
    const auth = authFor(`http://127.0.0.1:${port}/mcp`);
    const app = express();
    app.all(['/mcp', ...auth.metadataPaths], mcpExpress(createMcp(), { auth, scope: (req, { auth }) => scopeOf(auth, req.method) }));
    const server = app.listen(port, '127.0.0.1');
    closers.push(closeServer(server));
    return (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init);
  },
  Hono: async () => {
    const port = await freePort();
    const auth = authFor(`http://127.0.0.1:${port}/mcp`);
    const app = new Hono();
    const handler = mcpHono(createMcp(), { auth, scope: (c, { auth }) => scopeOf(auth, c.req.method) });
    for (const path of ['/mcp', ...auth.metadataPaths]) app.all(path, handler);
    const server = honoServe({ fetch: app.fetch, port, hostname: '127.0.0.1' }) as Server;
    closers.push(closeServer(server));
    return (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init);
  },
  Fastify: async () => {
    const port = await freePort();
    const app = Fastify();
    await app.register(mcpFastify(createMcp(), { auth: authFor(`http://127.0.0.1:${port}/mcp`), scope: (request, { auth }) => scopeOf(auth, request.method) }));
    await app.listen({ port, host: '127.0.0.1' });
    closers.push(() => app.close());
    return (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init);
  },
};

const headers = (token?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'whoami',
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});
const body = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'tools/call',
  params: { name: 'whoami', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
});

describe.each(Object.keys(ENTRIES))('%s with the auth option', (entry) => {
  it('serves the metadata at both well-known paths, readable from any origin', async () => {
    const get = await ENTRIES[entry]!();
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await get(path, { headers: { origin: 'https://inspector.example' } });
      expect([response.status, response.headers.get('access-control-allow-origin')]).toEqual([200, '*']);
      expect(await response.json()).toMatchObject({ authorization_servers: [ISSUER], scopes_supported: ['mcp:tools'] });
    }
  });

  it('challenges a request without a token and serves a verified one, with ctx.auth and the scope built from it', async () => {
    const call = await ENTRIES[entry]!();
    factoryCalls.length = 0;
    const refused = await call('/mcp', { method: 'POST', headers: headers(), body });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="http:\/\/127\.0\.0\.1(:\d+)?\/\.well-known\/oauth-protected-resource\/mcp", scope="mcp:tools"$/);
    expect((await call('/mcp', { method: 'POST', headers: headers('bad'), body })).status).toBe(401);
    expect(factoryCalls, 'the factory runs after authentication only').toEqual([]);
    const served = await call('/mcp', { method: 'POST', headers: headers('good-alice'), body });
    expect(served.status).toBe(200);
    expect((await served.json()).result.content).toEqual([{ type: 'text', text: `${ISSUER} alice app | alice blue POST` }]);
    expect(factoryCalls).toEqual(['alice']);
  });
});

describe.each(Object.keys(ENTRIES))('%s: a 2025 GET stream', (entry) => {
  it('passes the same gate: the factory gets the verified token there too', async () => {
    const call = await ENTRIES[entry]!();
    const legacy = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer good-alice' };
    const init = await call('/mcp', {
      method: 'POST', headers: legacy,
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    const get = (authorization?: string) => {
      const controller = new AbortController();
      const headers: Record<string, string> = { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
      if (authorization) headers.authorization = authorization;
      return { controller, response: call('/mcp', { headers, signal: controller.signal }) };
    };
    factoryCalls.length = 0;
    const refused = get();
    expect((await refused.response).status).toBe(401);
    expect(factoryCalls).toEqual([]);
    const opened = get('Bearer good-alice');
    const response = await opened.response;
    expect([response.status, response.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    expect(factoryCalls).toEqual(['alice']);
    opened.controller.abort();
  });
});
