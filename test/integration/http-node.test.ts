/** The node:http adapter on real sockets: disconnects, upload limits, framework bodies, serve() and its lifecycle. */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createNodeHandler, serve, type RunningServer } from '../../src/transports/http/node.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const callTool = (name: string, extra: object = {}) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, ...extra } });
const post = (url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body), signal });

/** A server whose 'wait' tool resolves `aborted` with the time its signal fired. */
function waitingServer() {
  const mcp = new MiniMCP({ name: 'node', version: '1', onError: () => {} });
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  let abortedAt!: (t: number) => void;
  const aborted = new Promise<number>((r) => (abortedAt = r));
  mcp.tool('wait', { description: 'waits' }, (_a, ctx) => {
    ctx.progress(0); // opens an SSE stream when the request has a progressToken
    started();
    return new Promise((resolve) => ctx.signal.addEventListener('abort', () => (abortedAt(performance.now()), resolve('late'))));
  });
  mcp.tool('echo', { description: 'echo', input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } }, (a) => String(a.region));
  return { mcp, running, aborted };
}

const open: (RunningServer | Server)[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) {
    if ('close' in s && 'url' in s) await s.close();
    else await new Promise((r) => { (s as Server).closeAllConnections(); (s as Server).close(r); });
  }
});
async function start(mcp: MiniMCP, options = {}) {
  const running = await serve(mcp, { port: 0, ...options });
  open.push(running);
  return running;
}

describe('client disconnect', () => {
  it('cancels a pending JSON request when the socket closes (long before the idle timeout)', async () => {
    const { mcp, running, aborted } = waitingServer();
    const { url } = await start(mcp);
    const client = new AbortController();
    const pending = post(url, callTool('wait'), {}, client.signal).catch(() => 'aborted');
    await running;
    const t0 = performance.now();
    client.abort();
    const latency = (await aborted) - t0; // never aborted: the 20 s test timeout fails it before the 30 s idle timeout could
    console.info(`[measure] node JSON disconnect -> handler abort: ${latency.toFixed(1)} ms`);
    expect(await pending).toBe('aborted');
  });

  it('cancels an open SSE stream when the client aborts it (long before the idle timeout)', async () => {
    const { mcp, running, aborted } = waitingServer();
    const { url } = await start(mcp);
    const client = new AbortController();
    const response = await post(url, callTool('wait', { _meta: { progressToken: 'p' } }), {}, client.signal);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('connection')).toBe('keep-alive');
    await running;
    const t0 = performance.now();
    client.abort();
    const latency = (await aborted) - t0; // never aborted: the 20 s test timeout fails it before the 30 s idle timeout could
    console.info(`[measure] node SSE disconnect -> handler abort: ${latency.toFixed(1)} ms`);
  });

  it('close() ends open streams and cancels their handlers', async () => {
    const { mcp, running, aborted } = waitingServer();
    const server = await serve(mcp, { port: 0 });
    const response = await post(server.url, callTool('wait', { _meta: { progressToken: 'p' } }));
    await running;
    await server.close();
    await expect(aborted).resolves.toEqual(expect.any(Number));
    await expect(response.text()).rejects.toThrow();
  });
});

describe('body limit on a real upload', () => {
  it('refuses a declared Content-Length over the limit with 413', async () => {
    const { url } = await start(waitingServer().mcp, { maxBodyBytes: 100 });
    const response = await post(url, { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(500) } });
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe(-32600);
  });

  it('refuses a chunked upload as soon as it passes the limit, without reading the rest', async () => {
    const { url } = await start(waitingServer().mcp, { maxBodyBytes: 1024 });
    const { port } = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: HEADERS }, (res) => resolve(res.statusCode!));
      req.on('error', reject);
      req.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
      const chunk = 'x'.repeat(512);
      let sent = 0;
      const pump = () => { if (sent++ < 4) { req.write(chunk); setTimeout(pump, 5); } }; // stays open: never ends
      pump();
    });
    expect(status).toBe(413);
  });
});

describe('node adapter details', () => {
  it('answers JSON with Content-Length (not chunked)', async () => {
    const { url } = await start(waitingServer().mcp);
    const response = await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(response.headers.get('content-length')).toBe(String((await response.clone().text()).length));
    expect(response.headers.get('transfer-encoding')).toBeNull();
  });

  it('checks the real Host header', async () => {
    const { url } = await start(waitingServer().mcp);
    const { port } = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...HEADERS, host: `evil.example:${port}` } }, (res) => resolve(res.statusCode!));
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
    expect(status).toBe(403);
  });

  it('finds Mcp-Param-* headers whatever the case the core asks in', async () => {
    const { url } = await start(waitingServer().mcp);
    const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
    const body = callTool('echo', { arguments: { region: 'eu' }, _meta: MODERN_META });
    const ok = await post(url, body, { ...headers, 'Mcp-Param-Region': 'eu' });
    expect((await ok.json()).result.content[0].text).toBe('eu');
    const bad = await post(url, body, { ...headers, 'Mcp-Param-Region': 'us' });
    expect([bad.status, (await bad.json()).error.code]).toEqual([400, -32020]);
  });

  it('serve(): 404 on other paths, query strings allowed on the endpoint, loopback URL', async () => {
    const { url } = await start(waitingServer().mcp, { path: '/rpc' });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/rpc$/);
    expect((await post(url.replace('/rpc', '/other'), { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(404);
    expect((await post(`${url}?tenant=a`, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(200);
  });
});

describe('inside a framework (plain node:http standing in for Express)', () => {
  async function host(prepare: (req: IncomingMessage) => Promise<void>, handler: ReturnType<typeof createNodeHandler>) {
    const server = createServer(async (req, res) => {
      await prepare(req);
      handler(req, res, (error) => {
        res.writeHead(599).end(String((error as Error).message));
      });
    });
    open.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  }

  it('uses a body a parser already read (express.json())', async () => {
    const url = await host(async (req) => {
      let text = '';
      for await (const chunk of req) text += chunk;
      (req as { body?: unknown }).body = JSON.parse(text);
    }, createNodeHandler(waitingServer().mcp));
    expect(await (await post(url, { jsonrpc: '2.0', id: 5, method: 'ping' })).json()).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
  });

  it('hands unexpected failures to next(error) when given', async () => {
    const handler = createNodeHandler(waitingServer().mcp, { scope: () => { throw new Error('boom'); } });
    const url = await host(async () => {}, handler);
    const response = await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect([response.status, await response.text()]).toEqual([599, 'boom']);
  });
});

describe('serve() on a busy port (issue 26 item 7)', () => {
  it('rejects with an error that names the port and what to do, code EADDRINUSE kept', async () => {
    const holder = createServer();
    await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', listening));
    const { port } = holder.address() as AddressInfo;
    try {
      const failure = await serve(new MiniMCP({ name: 'busy', version: '1' }), { port }).then(() => undefined, (error: NodeJS.ErrnoException) => error);
      expect(failure?.code).toBe('EADDRINUSE');
      expect(failure?.message).toBe(`Port ${port} on 127.0.0.1 is already in use (EADDRINUSE): stop what holds it, or pass another port (serve(mcp, { port }); 0 takes any free one)`);
    } finally {
      holder.close();
    }
  });
});
