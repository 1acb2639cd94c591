/**
 * The Server Card (SEP-2127) on every HTTP entry, over real HTTP on 127.0.0.1: serve(), the node and
 * fetch handlers, Express, Hono and Fastify, each with `auth` on. The card validates against the
 * published schema, is public under auth, cached (ETag, 304), open to any origin, and the catalogs
 * point at it.
 */
import { once } from 'node:events';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as honoServe } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpExpress } from '../../src/adapters/express.js';
import { mcpFastify } from '../../src/adapters/fastify.js';
import { mcpHono } from '../../src/adapters/hono.js';
import { oauthResourceServer } from '../../src/auth/index.js';
import { MiniMCP } from '../../src/index.js';
import { HANDSHAKE_VERSIONS, STATELESS_VERSIONS } from '../../src/protocol/versions.js';
import { createFetchHandler } from '../../src/transports/http/fetch-handler.js';
import type { HttpOptions } from '../../src/transports/http/options.js';
import { createNodeHandler, serve } from '../../src/transports/http/node.js';
import { schemaErrors } from '../support/server-card-schema.js';

const PUBLIC_URL = 'https://mcp.example.com/mcp';
const CARD_URL = `${PUBLIC_URL}/server-card`;
/** Where the documentation tells framework users to mount the handler, beside `/mcp`. */
const DISCOVERY_PATHS = ['/mcp/server-card', '/.well-known/mcp/catalog.json', '/.well-known/ai-catalog.json'];

function createMcp(): MiniMCP {
  const mcp = new MiniMCP({ name: 'card-it', version: '2.7.1', title: 'Card test', description: 'A server for the card tests.', onError: () => {} });
  mcp.tool('add', { description: 'Add' }, () => 'ok');
  return mcp;
}

/** Every entry with OAuth on: no request reaches MCP without a token (the issuer is never contacted here). */
const options = (): HttpOptions => ({
  auth: oauthResourceServer({ issuer: 'https://issuer.example.com', resource: PUBLIC_URL }),
  card: { name: 'com.example/card-it', url: PUBLIC_URL },
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP request (node:http, so `Host` can be set). */
function send(base: string, path: string, method = 'GET', headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

async function listening(server: Server): Promise<{ base: string; close(): Promise<void> }> {
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const entries: Record<string, () => Promise<{ base: string; close(): Promise<void> }>> = {
  async serve() {
    const running = await serve(createMcp(), options());
    return { base: new URL(running.url).origin, close: running.close };
  },
  async 'node handler'() {
    return listening(createServer(createNodeHandler(createMcp(), options())).listen(0, '127.0.0.1'));
  },
  async 'fetch handler'() {
    const handle = createFetchHandler(createMcp(), options());
    return listening(honoServe({ fetch: (req: Request) => handle(req), port: 0, hostname: '127.0.0.1' }) as Server);
  },
  async express() {
    const app = express();
    const handler = mcpExpress(createMcp(), options());
    app.all('/mcp', handler);
    app.all(DISCOVERY_PATHS, handler);
    return listening(app.listen(0, '127.0.0.1'));
  },
  async hono() {
    const app = new Hono();
    const handler = mcpHono(createMcp(), options());
    for (const path of ['/mcp', ...DISCOVERY_PATHS]) app.all(path, handler);
    return listening(honoServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
  },
  async fastify() {
    const app = Fastify();
    await app.register(mcpFastify(createMcp(), options())); // the plugin routes the card and catalogs itself
    await app.listen({ port: 0, host: '127.0.0.1' });
    return listening(app.server);
  },
};

describe.each(Object.keys(entries))('the server card on %s', (entry) => {
  let base: string;
  let close: () => Promise<void>;
  beforeAll(async () => ({ base, close } = await entries[entry]!()));
  afterAll(() => close());

  it('answers a bare GET with the card, valid against the published schema, from the server facts', async () => {
    const answer = await send(base, '/mcp/server-card');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/mcp-server-card+json');
    const card = JSON.parse(answer.body);
    expect(schemaErrors(card)).toEqual([]);
    expect(card).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'com.example/card-it',
      version: '2.7.1',
      title: 'Card test',
      description: 'A server for the card tests.',
      remotes: [{ type: 'streamable-http', url: PUBLIC_URL, supportedProtocolVersions: [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS] }],
    });
  });

  it('is public under auth: the card without a token, while MCP itself needs one', async () => {
    const mcp = await send(base, '/mcp', 'POST', { 'content-type': 'application/json', accept: 'application/json' }, '{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(mcp.status).toBe(401);
    const card = await send(base, '/mcp/server-card', 'GET', { authorization: 'Bearer not-a-token', accept: 'application/mcp-server-card+json' });
    expect(card.status).toBe(200);
    expect(card.body).not.toContain('not-a-token');
  });

  it('caches: Cache-Control with a max-age, an ETag, and 304 for If-None-Match (weak or in a list)', async () => {
    const first = await send(base, '/mcp/server-card');
    expect(first.headers['cache-control']).toBe('public, max-age=3600');
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await send(base, '/mcp/server-card', 'GET', { 'if-none-match': tag });
      expect(again.status, tag).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
    }
    expect((await send(base, '/mcp/server-card', 'GET', { 'if-none-match': '"other"' })).status).toBe(200);
    // HEAD: the GET's headers and length, no body.
    const head = await send(base, '/mcp/server-card', 'HEAD');
    expect([head.status, head.headers.etag, head.headers['content-length'], head.body]).toEqual([200, etag, String(Buffer.byteLength(first.body)), '']);
  });

  it('is open to any origin for GET: CORS headers, a preflight, and no DNS-rebinding Origin refusal', async () => {
    const answer = await send(base, '/mcp/server-card', 'GET', { origin: 'https://registry.example.org' });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-expose-headers']).toBe('ETag');
    const preflight = await send(base, '/mcp/server-card', 'OPTIONS', { origin: 'https://registry.example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toContain('GET');
    expect(preflight.headers['access-control-allow-headers']).toContain('If-None-Match');
    // A POST to the card is no MCP request.
    expect((await send(base, '/mcp/server-card', 'POST', { 'content-type': 'application/json' }, '{}')).status).toBe(405);
  });

  it('publishes both catalogs, each naming the card by URL with a urn: identifier', async () => {
    const mcpCatalog = await send(base, '/.well-known/mcp/catalog.json');
    expect(mcpCatalog.status).toBe(200);
    expect(mcpCatalog.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(mcpCatalog.body)).toEqual({
      specVersion: 'draft',
      entries: [{ identifier: 'urn:air:example.com:card-it', type: 'application/mcp-server-card+json', url: CARD_URL }],
    });
    const aiCatalog = await send(base, '/.well-known/ai-catalog.json');
    expect(aiCatalog.headers['content-type']).toBe('application/ai-catalog+json');
    expect(JSON.parse(aiCatalog.body).entries).toEqual([{ identifier: 'urn:air:example.com:mcp:card-it', type: 'application/mcp-server-card+json', url: CARD_URL }]);
    expect((await send(base, '/.well-known/ai-catalog.json', 'GET', { 'if-none-match': aiCatalog.headers.etag! })).status).toBe(304);
  });
});

describe('serve() without a configured URL (local development)', () => {
  it('derives the remote from a loopback Host only, points the catalogs at its card, and serves the alias when asked', async () => {
    const running = await serve(createMcp(), { path: '/api/mcp', dnsRebinding: false, card: { name: 'com.example/card-it', wellKnownAlias: true, aiCatalog: false } });
    try {
      const origin = new URL(running.url).origin;
      const local = await send(origin, '/api/mcp/server-card');
      expect(JSON.parse(local.body).remotes[0].url).toBe(running.url);
      expect(local.headers.vary).toBe('Host');
      const catalog = JSON.parse((await send(origin, '/.well-known/mcp/catalog.json')).body);
      expect(catalog.entries[0].url).toBe(`${running.url}/server-card`);
      expect((await send(origin, '/.well-known/mcp/server-card.json')).body).toBe(local.body);
      expect((await send(origin, '/.well-known/ai-catalog.json')).status).toBe(404); // switched off
      expect((await send(origin, '/elsewhere/server-card')).status).toBe(404); // only beside the endpoint
      // Any other Host (DNS-rebinding checks off here): no remote, no catalog, nothing of the Host repeated.
      const foreign = await send(origin, '/api/mcp/server-card', 'GET', { host: 'evil.example' });
      expect(foreign.status).toBe(200);
      expect(foreign.body).not.toContain('evil');
      expect(JSON.parse(foreign.body).remotes).toBeUndefined();
      expect((await send(origin, '/.well-known/mcp/catalog.json', 'GET', { host: 'evil.example' })).status).toBe(404);
    } finally {
      await running.close();
    }
  });

  it('refuses to start with a card that does not validate, naming the field and the rule', async () => {
    await expect(serve(createMcp(), { card: { name: 'card-it' } })).rejects.toThrow(/card: the Server Card is not valid: name must match/);
    const long = new MiniMCP({ name: 'x', version: '1.0.0', description: 'd'.repeat(101) });
    await expect(serve(long, { card: { name: 'com.example/x' } })).rejects.toThrow('description must be at most 100 characters (it has 101)');
    expect(() => createFetchHandler(createMcp(), { card: { name: 'com.example/x', url: 'ftp://x' } })).toThrow('remotes[0].url must match');
  });

  it('serves no card without the option: the paths stay 404 and 405 as before', async () => {
    const running = await serve(createMcp());
    try {
      const origin = new URL(running.url).origin;
      expect((await send(origin, '/mcp/server-card')).status).toBe(404);
      expect((await send(origin, '/.well-known/ai-catalog.json')).status).toBe(404);
    } finally {
      await running.close();
    }
  });
});
