/**
 * Per-principal rate limits over real HTTP on 127.0.0.1 (node:http) and through the fetch handler:
 * 429 with Retry-After and the JSON-RPC error, decided from the headers before a byte of the body is
 * read (a request whose body never comes is refused at once), one budget per principal, anonymous
 * callers and principals lifted by `limitsFor` left alone, undeclared bodies counted once read.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { McpError, MiniMCP, type MiniMCPOptions } from '../../src/index.js';
import { createFetchHandler } from '../../src/transports/http/index.js';
import { createNodeHandler } from '../../src/transports/http/node.js';

type Scope = { principal: string } | undefined;
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const server = (options: Partial<MiniMCPOptions<Scope>> = {}) => {
  const mcp = new MiniMCP<Scope>({ name: 'rl', version: '1', onError: () => {}, ...options });
  mcp.tool('echo', {}, () => 'ok');
  return mcp;
};
/** `Authorization: Bearer <name>` names the principal; no header is anonymous. */
const scope = (get: (name: string) => string | null | undefined): Scope => {
  const token = get('authorization')?.replace(/^Bearer /, '');
  if (token === '') throw new McpError(-32600, 'Unauthorized', undefined, 401);
  return token === undefined || token === null ? undefined : { principal: token };
};

async function listen(mcp: MiniMCP<Scope>): Promise<number> {
  const http = createServer(createNodeHandler(mcp, { scope: (req) => scope((n) => req.headers[n] as string | undefined) }));
  servers.push(http);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return (http.address() as AddressInfo).port;
}

const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const headers = (user?: string) => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(user ? { authorization: `Bearer ${user}` } : {}) });

async function post(port: number, user?: string, body = ping) {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: headers(user), body });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), connection: response.headers.get('connection'), json: await response.json().catch(() => undefined) };
}

describe('rate limits over node:http', () => {
  it('past the burst: 429, Retry-After, the JSON-RPC error with "id": null; another principal and anonymous callers are untouched', async () => {
    const port = await listen(server({ rateLimit: { requestsPerSecond: 1, requestBurst: 3 } }));
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(port, 'bob')).status);
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await post(port, 'bob');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('1');
    expect(refused.connection).toBe('close');
    expect(refused.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Too Many Requests: one client may send 1 requests and 1048576 request bytes per second (rateLimit), retry in 1 s' } });
    expect((await post(port, 'alice')).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await post(port)).status).toBe(200);
  });

  it('refuses before reading the body: a request whose body never arrives is answered at once', async () => {
    const port = await listen(server({ rateLimit: { requestsPerSecond: 1, requestBurst: 1 } }));
    expect((await post(port, 'bob')).status).toBe(200);
    const started = Date.now();
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      const socket = connect({ host: '127.0.0.1', port }, () => {
        // 1,000 bytes promised, none sent: reading the body would wait for the 30 s body deadline.
        socket.write(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json\r\nauthorization: Bearer bob\r\ncontent-length: 1000\r\n\r\n`);
      });
      socket.on('data', (d) => (text += d));
      socket.on('close', () => resolve(text));
      socket.on('error', () => {});
    });
    expect(answer).toMatch(/^HTTP\/1\.1 429 /);
    expect(answer).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('counts the declared body bytes before reading: a large body is refused when the byte budget is spent', async () => {
    const port = await listen(server({ rateLimit: { requestBytesPerSecond: 1000, requestBytesBurst: 2000 } }));
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: 'x'.repeat(1500) } } });
    expect((await post(port, 'bob', big)).status).toBe(200);
    const refused = await post(port, 'bob', big);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await post(port, 'bob')).status).toBe(200); // a small one still fits
  });

  it('limitsFor lifts one principal: it is never refused while others are', async () => {
    const port = await listen(server({ rateLimit: { requestsPerSecond: 1, requestBurst: 1, limitsFor: (p) => (p === 'service' ? false : undefined) } }));
    for (let i = 0; i < 5; i++) expect((await post(port, 'service')).status).toBe(200);
    expect((await post(port, 'bob')).status).toBe(200);
    expect((await post(port, 'bob')).status).toBe(429);
  });

  it('holds a refusal for its Retry-After (at most 1 s): a client looping on refusals cannot spend the server on them', async () => {
    const port = await listen(server({ rateLimit: { requestsPerSecond: 1, requestBurst: 1 } }));
    expect((await post(port, 'bob')).status).toBe(200);
    // Four closed loops for 1.5 s: answered at once, they would be refused hundreds of times.
    const until = Date.now() + 1_500;
    const statuses: number[] = [];
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (Date.now() < until) statuses.push((await post(port, 'bob')).status);
    }));
    expect(statuses.filter((s) => s === 429).length).toBeLessThanOrEqual(12);
    expect(statuses.length).toBeGreaterThanOrEqual(4);
    expect((await post(port, 'alice')).status).toBe(200); // another principal is not held
  });

  it('rateLimit: false turns the limits off', async () => {
    const port = await listen(server({ rateLimit: false }));
    for (let i = 0; i < 5; i++) expect((await post(port, 'bob')).status).toBe(200);
  });
});

describe('rate limits through the fetch handler', () => {
  const handler = (mcp: MiniMCP<Scope>) => createFetchHandler(mcp, { scope: (req) => scope((n) => req.headers.get(n)) });
  const request = (user: string, body: BodyInit) =>
    new Request('http://localhost/mcp', { method: 'POST', headers: headers(user), body, duplex: 'half' } as RequestInit);

  it('refuses with 429 without touching a body stream that never ends', async () => {
    const fetchHandler = handler(server({ rateLimit: { requestsPerSecond: 1, requestBurst: 1 } }));
    expect((await fetchHandler(request('bob', ping))).status).toBe(200);
    // Reading it would wait for the 30 s body deadline: the answer comes at once, the body untouched.
    const never = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    const pending = request('bob', never);
    const refused = await fetchHandler(pending);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(pending.bodyUsed).toBe(false);
  });

  it('counts a body of undeclared length once read: the next request waits for its bytes', async () => {
    const fetchHandler = handler(server({ rateLimit: { requestBytesPerSecond: 100, requestBytesBurst: 1000 } }));
    const padded = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: 'x'.repeat(1400) } } });
    const chunked = new ReadableStream<Uint8Array>({ start(c) {
      c.enqueue(new TextEncoder().encode(padded));
      c.close();
    } });
    expect((await fetchHandler(request('bob', chunked))).status).toBe(200); // no Content-Length: 0 declared, counted after
    const next = await fetchHandler(request('bob', ping));
    expect(next.status).toBe(429);
    expect(Number(next.headers.get('retry-after'))).toBeGreaterThanOrEqual(4); // about 1,450 bytes of debt at 100 per second
  });
});

describe('a listen body larger than any listen request that could pass', () => {
  const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const listenBody = (uris: number) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: Array.from({ length: uris }, (_, i) => `test://r/${i}`) }, _meta: META } });

  it('is refused 413 from its Content-Length and Mcp-Method, without being parsed; a filter at the cap is still parsed and judged', async () => {
    const parsed: unknown[] = [];
    const realParse = JSON.parse;
    const port = await listen(server());
    const send = async (body: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { ...headers('bob'), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
        body,
      });
      return { status: response.status, text: await response.text() };
    };
    JSON.parse = (text: string, ...rest: []) => (parsed.push(text.length), realParse(text, ...rest));
    try {
      const big = listenBody(232_000); // the soak's 3.9 MiB filter
      const refused = await send(big);
      expect(refused.status).toBe(413);
      expect(realParse(refused.text)).toMatchObject({ id: null, error: { code: -32600, message: 'Payload Too Large: the body exceeds 851968 bytes' } });
      expect(parsed.filter((n) => (n as number) >= big.length)).toEqual([]);
      const judged = await send(listenBody(1_001)); // small, and over the URI cap: parsed, then -32602
      expect(judged.text).toContain('resourceSubscriptions holds more than 1000 URIs');
    } finally {
      JSON.parse = realParse;
    }
  });
});
