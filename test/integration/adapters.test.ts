/**
 * The framework adapters (minimcp/express, minimcp/hono, minimcp/fastify) in the real frameworks over
 * real HTTP on 127.0.0.1, driven by the official SDK v1 client and by raw fetch for the gate.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as honoServe } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import express from 'express';
import Fastify from 'fastify';
import { Hono, type Context } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { mcpExpress } from '../../src/adapters/express.js';
import { mcpFastify } from '../../src/adapters/fastify.js';
import { mcpHono } from '../../src/adapters/hono.js';
import { ErrorCode, McpError, MiniMCP } from '../../src/index.js';

interface Scope {
  user: string;
  via: string;
}

/** Every adapter's scope factory: the caller from `x-user`, or a 401 with a challenge. */
function scopeOf(user: string | undefined, via: string): Scope {
  if (!user) {
    throw Object.assign(new McpError(ErrorCode.InvalidRequest, 'Unauthorized', undefined, 401), {
      headers: { 'www-authenticate': 'Bearer' },
    });
  }
  return { user, via };
}

/** Aborted handler signals, by tool call, to check that a client disconnect reaches the handler. */
const aborted = new Set<string>();

function createServer(): MiniMCP<Scope> {
  const mcp = new MiniMCP<Scope>({ name: 'adapters-it', version: '1.0.0', onError: () => {} });
  mcp.tool('add', { description: 'Add', input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));
  mcp.tool('count', { description: 'Counts with progress' }, async (_a, ctx) => {
    for (let i = 1; i <= 3; i++) {
      ctx.progress(i, 3);
      await new Promise((r) => setTimeout(r, 5));
    }
    return 'counted';
  });
  // ctx.scope is typed Scope end to end: no cast.
  mcp.tool('whoami', { description: 'The caller' }, (_a, ctx) => `${ctx.scope.user} via ${ctx.scope.via}`);
  mcp.tool('hang', { description: 'Waits for cancellation', input: z.object({ tag: z.string() }) }, ({ tag }, ctx) =>
    new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => (aborted.add(tag), resolve('aborted')), { once: true })));
  return mcp;
}

interface Running {
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server, path = '/mcp'): Promise<Running> {
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const setups: Record<string, () => Promise<Running>> = {
  async express() {
    const app = express();
    app.all('/mcp', mcpExpress(createServer(), { scope: (req) => scopeOf(req.get('x-user'), 'express') }));
    return listen(app.listen(0, '127.0.0.1'));
  },
  async 'express + express.json()'() {
    const app = express();
    app.use(express.json());
    app.all('/mcp', mcpExpress(createServer(), { scope: (req) => scopeOf(req.get('x-user'), `express ${typeof req.body}`) }));
    return listen(app.listen(0, '127.0.0.1'));
  },
  async hono() {
    type AppEnv = { Variables: { via: string } };
    const app = new Hono<AppEnv>();
    app.use('/mcp', async (c, next) => {
      c.set('via', 'hono');
      await next();
    });
    app.all('/mcp', mcpHono(createServer(), { scope: (c: Context<AppEnv>) => scopeOf(c.req.header('x-user'), c.get('via')) }));
    return listen(honoServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
  },
  async 'hono, body read by a middleware'() {
    const app = new Hono();
    app.post('/mcp', async (c, next) => {
      await c.req.json().catch(() => undefined); // e.g. a validator or a logger
      await next();
    });
    app.all('/mcp', mcpHono(createServer(), { scope: (c) => scopeOf(c.req.header('x-user'), 'hono replay') }));
    return listen(honoServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
  },
  async fastify() {
    // forceCloseConnections: close() also ends sockets that never sent a request (the client's aborted ones).
    const app = Fastify({ forceCloseConnections: true });
    await app.register(mcpFastify(createServer(), { scope: (request) => scopeOf(request.headers['x-user'] as string | undefined, `fastify ${request.method}`) }), { prefix: '/api' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const running = await listen(app.server, '/api/mcp');
    return { url: running.url, close: () => app.close() };
  },
};

const JSON_TYPE = 'application/json';
const ACCEPT = 'application/json, text/event-stream';
const initialize = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

async function post(url: string, headers: Record<string, string>, body = initialize) {
  const response = await fetch(url, { method: 'POST', headers: { accept: ACCEPT, 'x-user': 'ada', ...headers }, body });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

describe.each(Object.keys(setups))('%s', (name) => {
  let server: Running;
  let client: Client;
  const seen: { method: string; status: number; contentType: string | null }[] = [];

  beforeAll(async () => {
    server = await setups[name]!();
    const fetchImpl = async (url: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(url, init);
      if (init?.method === 'POST' && typeof init.body === 'string') {
        seen.push({ method: JSON.parse(init.body).method ?? 'response', status: response.status, contentType: response.headers.get('content-type') });
      }
      return response;
    };
    client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch: fetchImpl, requestInit: { headers: { 'x-user': 'ada' } } }));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('initializes, lists tools and calls one (application/json)', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'adapters-it' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['add', 'count', 'whoami', 'hang']);
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({ content: [{ type: 'text', text: '5' }] });
    expect(seen.at(-1)).toEqual({ method: 'tools/call', status: 200, contentType: JSON_TYPE });
    expect(seen.find((s) => s.method === 'notifications/initialized')?.status).toBe(202);
  });

  it('streams progress as SSE', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'count', arguments: {} }, undefined, { onprogress: (p) => void progress.push(p.progress) });
    expect(result.content).toEqual([{ type: 'text', text: 'counted' }]);
    expect(progress).toEqual([1, 2, 3]);
    expect(seen.at(-1)).toEqual({ method: 'tools/call', status: 200, contentType: 'text/event-stream' });
  });

  it('hands the scope factory framework objects and the handler the typed scope', async () => {
    const via: Record<string, string> = {
      express: 'express',
      'express + express.json()': 'express object', // the parsed body reached the handler as req.body
      hono: 'hono', // from c.get(), set by a middleware
      'hono, body read by a middleware': 'hono replay',
      fastify: 'fastify POST',
    };
    expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: `ada via ${via[name]}` }]);
  });

  it('refuses in the gate: 405 GET and DELETE, 415, 403 Origin, 401 from the scope factory, 400 -32700', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(server.url, { method, headers: { accept: ACCEPT } });
      expect([method, response.status, response.headers.get('allow')]).toEqual([method, 405, 'POST']);
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
    const wrongType = await post(server.url, { 'content-type': 'text/plain' });
    expect([wrongType.status, JSON.parse(wrongType.body).error.code]).toEqual([415, -32600]);
    const evil = await post(server.url, { 'content-type': JSON_TYPE, origin: 'http://evil.example' });
    expect([evil.status, JSON.parse(evil.body).error.code]).toEqual([403, -32600]);
    const anonymous = await post(server.url, { 'content-type': JSON_TYPE, 'x-user': '' });
    expect([anonymous.status, anonymous.headers.get('www-authenticate'), JSON.parse(anonymous.body).error.message]).toEqual([401, 'Bearer', 'Unauthorized']);
    const ok = await post(server.url, { 'content-type': JSON_TYPE });
    expect([ok.status, (ok.headers.get('mcp-session-id') ?? '').length > 0]).toEqual([200, true]);
    if (name !== 'express + express.json()') {
      // Behind express.json(), malformed JSON is Express's own 400 page (documented).
      const broken = await post(server.url, { 'content-type': JSON_TYPE }, '{"jsonrpc":');
      expect([broken.status, JSON.parse(broken.body).error.code]).toEqual([400, -32700]);
    }
  });

  it('cancels the handler when the client disconnects', async () => {
    const tag = `${name}-hang`;
    const abort = new AbortController();
    const pending = fetch(server.url, {
      method: 'POST',
      signal: abort.signal,
      headers: { accept: ACCEPT, 'content-type': JSON_TYPE, 'x-user': 'ada' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'hang', arguments: { tag } } }),
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    await pending;
    const deadline = Date.now() + 2_000;
    while (!aborted.has(tag) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(aborted.has(tag)).toBe(true);
  });
});
