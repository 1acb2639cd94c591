/** The HTTP gate (errors.md §3), one test per row, through the Web fetch handler with plain `new Request`. */
import { describe, expect, it, vi } from 'vitest';
import { McpError, MiniMCP } from '../../src/index.js';
import { createFetchHandler, type FetchHandlerOptions } from '../../src/transports/http/index.js';
import { LINGER_BYTES } from '../../src/transports/http/linger.js';

const URL_ = 'http://localhost:3000/mcp';
const JSON_CT = 'application/json';
const BOTH = 'application/json, text/event-stream';
const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };

function server() {
  const mcp = new MiniMCP<{ user: string }>({ name: 'gate', version: '1', onError: () => {} });
  mcp.tool('whoami', { description: 'scope' }, (_args, ctx) => ctx.scope?.user ?? 'nobody');
  return mcp;
}

function post(body: BodyInit | object, headers: Record<string, string> = {}, url = URL_): Request {
  const text = typeof body === 'object' && !(body instanceof Uint8Array) && !(body instanceof ReadableStream) ? JSON.stringify(body) : body;
  return new Request(url, { method: 'POST', headers: { 'content-type': JSON_CT, accept: BOTH, ...headers }, body: text as BodyInit, duplex: 'half' } as RequestInit);
}

async function call(request: Request, options: FetchHandlerOptions<{ user: string }> = {}, mcp = server()) {
  const response = await createFetchHandler(mcp, options)(request);
  const text = await response.text();
  return { response, status: response.status, text, json: text ? JSON.parse(text) : undefined };
}

const gateError = (json: any, code: number) => {
  expect(json.jsonrpc).toBe('2.0');
  expect(json.id).toBeNull();
  expect(json.error.code).toBe(code);
  expect(json.error.message).toEqual(expect.any(String));
};

describe('method: POST only', () => {
  for (const method of ['GET', 'DELETE', 'OPTIONS', 'PUT', 'HEAD']) {
    it(`${method} -> 405 with Allow: POST`, async () => {
      const { status, response, text } = await call(new Request(URL_, { method, headers: { accept: BOTH } }));
      expect(status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      if (method !== 'HEAD') gateError(JSON.parse(text), -32600);
    });
  }
});

describe('Content-Type', () => {
  for (const type of ['text/plain', 'application/jsonx', 'multipart/form-data', 'application/x-www-form-urlencoded']) {
    it(`${type} -> 415`, async () => {
      const { status, json } = await call(post(ping, { 'content-type': type }));
      expect(status).toBe(415);
      gateError(json, -32600);
    });
  }
  it('a missing Content-Type -> 415', async () => {
    const request = new Request(URL_, { method: 'POST', headers: { accept: BOTH }, body: new TextEncoder().encode(JSON.stringify(ping)) });
    expect((await call(request)).status).toBe(415);
  });
  for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/json ;charset="UTF-8"']) {
    it(`${type} is accepted`, async () => {
      const { status, json } = await call(post(ping, { 'content-type': type }));
      expect(status).toBe(200);
      expect(json).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    });
  }
});

describe('Accept (RFC 9110)', () => {
  for (const accept of ['text/event-stream', 'text/html', 'application/json;q=0, text/event-stream', 'application/json;q=0, */*', 'application/*;q=0, text/*']) {
    it(`"${accept}" -> 406`, async () => {
      const { status, json } = await call(post(ping, { accept }));
      expect(status).toBe(406);
      gateError(json, -32600);
    });
  }
  for (const accept of ['*/*', 'application/*', 'application/json', 'text/html, */*;q=0.1', 'APPLICATION/JSON;q=0.5', '']) {
    it(`"${accept}" is acceptable`, async () => {
      expect((await call(post(ping, { accept }))).status).toBe(200);
    });
  }
  it('a missing Accept means */*', async () => {
    const request = new Request(URL_, { method: 'POST', headers: { 'content-type': JSON_CT }, body: JSON.stringify(ping) });
    expect((await call(request)).status).toBe(200);
  });
});

describe('body', () => {
  it('a declared Content-Length over the limit -> 413 before reading', async () => {
    const request = post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'content-length': '100000' });
    const { status, json, response } = await call(request, { maxBodyBytes: 64 });
    expect(status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    gateError(json, -32600);
  });

  it('a streamed body over the limit is read to its end and dropped (lingering close), then refused', async () => {
    let pulls = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(1024).fill(0x20));
        if (pulls === 1000) controller.close();
      },
      cancel() {
        cancelled = true;
      },
    });
    const { status, json } = await call(post(body), { maxBodyBytes: 4096 });
    expect(status).toBe(413);
    gateError(json, -32600);
    expect(pulls).toBe(1000); // drained, so a client still uploading reads the answer
    expect(cancelled).toBe(false);
  });

  it('an endless streamed body is cancelled once LINGER_BYTES past the limit', async () => {
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 65_536;
        controller.enqueue(new Uint8Array(65_536).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const { status } = await call(post(body), { maxBodyBytes: 4096 });
    expect(status).toBe(413);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThanOrEqual(4096 + LINGER_BYTES + 4 * 65_536); // a few chunks of read-ahead
  });

  it('a body exactly at the limit passes', async () => {
    const text = JSON.stringify(ping);
    expect((await call(post(text), { maxBodyBytes: new TextEncoder().encode(text).length })).status).toBe(200);
  });

  it('invalid UTF-8 -> 400 -32700', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"p'), 0xff, 0xfe, ...new TextEncoder().encode('"}')]);
    const { status, json } = await call(post(bytes));
    expect(status).toBe(400);
    gateError(json, -32700);
  });

  it('invalid JSON -> 400 -32700, id null', async () => {
    const { status, json } = await call(post('{"jsonrpc":"2.0","id":5,'));
    expect(status).toBe(400);
    gateError(json, -32700);
  });

  it('a batch -> 400 -32600', async () => {
    const { status, json } = await call(post([ping]));
    expect(status).toBe(400);
    gateError(json, -32600);
  });
});

describe('DNS rebinding (Host / Origin)', () => {
  for (const [name, headers] of [
    ['evil Host', { host: 'evil.example:3000' }],
    ['evil Origin', { origin: 'http://evil.example' }],
    ['Origin "null"', { origin: 'null' }],
    ['a file: Origin', { origin: 'file://localhost' }],
    ['a Host with junk after the port', { host: 'localhost:3000@evil.example' }],
    ['a Host suffix trick', { host: 'localhost.evil.example' }],
  ] as const) {
    it(`${name} -> 403, id null`, async () => {
      const { status, json } = await call(post(ping, headers));
      expect(status).toBe(403);
      gateError(json, -32600);
    });
  }

  it('403 when the URL authority (no Host header) is not allowed', async () => {
    expect((await call(post(ping, {}, 'http://evil.example/mcp'))).status).toBe(403);
  });

  for (const [host, origin] of [
    ['localhost:3000', 'http://localhost:3000'],
    ['127.0.0.1:49152', 'https://127.0.0.1:49152'],
    ['[::1]:8080', 'http://[::1]:8080'],
    ['LOCALHOST', 'http://LocalHost:5173'],
  ]) {
    it(`allows Host ${host} with Origin ${origin}`, async () => {
      expect((await call(post(ping, { host: host!, origin: origin! }))).status).toBe(200);
    });
  }

  it('explicit allowedHosts replace the defaults; a port in an entry pins it', async () => {
    const dnsRebinding = { allowedHosts: ['mcp.example.com', 'api.example.com:8443'] };
    expect((await call(post(ping, { host: 'mcp.example.com:443', origin: 'https://mcp.example.com' }), { dnsRebinding })).status).toBe(200);
    expect((await call(post(ping, { host: 'api.example.com:8443' }), { dnsRebinding })).status).toBe(200);
    expect((await call(post(ping, { host: 'api.example.com:9000' }), { dnsRebinding })).status).toBe(403);
    expect((await call(post(ping, { host: 'localhost:3000' }), { dnsRebinding })).status).toBe(403);
  });

  it('explicit allowedOrigins match exactly', async () => {
    const dnsRebinding = { allowedOrigins: ['https://app.example.com'] };
    expect((await call(post(ping, { origin: 'https://app.example.com' }), { dnsRebinding })).status).toBe(200);
    expect((await call(post(ping, { origin: 'http://localhost:3000' }), { dnsRebinding })).status).toBe(403);
  });

  it('dnsRebinding: false turns the check off', async () => {
    expect((await call(post(ping, { host: 'evil.example', origin: 'http://evil.example' }), { dnsRebinding: false })).status).toBe(200);
  });
});

describe('outcomes', () => {
  it('a notification -> 202 with an empty body', async () => {
    const { status, text, response } = await call(post({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(status).toBe(202);
    expect(text).toBe('');
    expect(response.headers.get('content-type')).toBeNull();
  });

  it('a client response nobody waits for -> 400 -32600 with its id', async () => {
    const { status, json } = await call(post({ jsonrpc: '2.0', id: 'mm-x', result: {} }));
    expect(status).toBe(400);
    expect(json.id).toBe('mm-x');
    expect(json.error.code).toBe(-32600);
  });

  it('2026: unknown method -> 404 -32601, unsupported version -> 400 -32022, both with the id', async () => {
    const meta = (v: string) => ({ _meta: { 'io.modelcontextprotocol/protocolVersion': v, 'io.modelcontextprotocol/clientCapabilities': {} } });
    const unknown = await call(post({ jsonrpc: '2.0', id: 3, method: 'nope/nope', params: meta('2026-07-28') }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'nope/nope' }));
    expect([unknown.status, unknown.json.id, unknown.json.error.code]).toEqual([404, 3, -32601]);
    const old = await call(post({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: meta('2099-01-01') }, { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' }));
    expect([old.status, old.json.id, old.json.error.code]).toEqual([400, 4, -32022]);
  });

  it('overload -> 503 with Retry-After', async () => {
    const mcp = new MiniMCP({ name: 'busy', version: '1', maxConcurrency: 1, maxQueue: 1, queueTimeoutMs: 1, onError: () => {} });
    let release!: () => void;
    const busy = new Promise<void>((resolve) => (release = resolve));
    mcp.tool('slow', { description: 'blocks' }, async () => (await busy, 'done'));
    const handle = createFetchHandler(mcp, { retryAfterSeconds: 2 });
    const first = handle(post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } }));
    await new Promise((r) => setTimeout(r, 10));
    const second = await handle(post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } }));
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('2');
    expect((await second.json()).error.code).toBe(-32603);
    release();
    expect((await first).status).toBe(200);
  });

  it('a failing scope factory -> 500 -32603 without leaking the error', async () => {
    const onError = vi.fn();
    const { status, text, json } = await call(post(ping), { onError, scope: () => { throw new Error('db password is hunter2 at /srv/x.js'); } });
    expect(status).toBe(500);
    gateError(json, -32603);
    expect(text).not.toContain('hunter2');
    expect(onError).toHaveBeenCalledOnce();
  });

  it('a scope factory McpError with httpStatus 401 -> 401 with its headers (auth)', async () => {
    const scope = async () => {
      throw Object.assign(new McpError(-32600, 'Unauthorized: missing bearer token', undefined, 401), { headers: { 'www-authenticate': 'Bearer' } });
    };
    const { status, json, response } = await call(post(ping), { scope });
    expect(status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Unauthorized: missing bearer token' } });
  });

  it('the scope reaches the handler, from the factory or from init (which wins)', async () => {
    const request = () => post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami' } });
    const handle = createFetchHandler(server(), { scope: async (r) => ({ user: r.headers.get('x-user') ?? 'anon' }) });
    expect((await (await handle(request())).json()).result.content[0].text).toBe('anon');
    expect((await (await handle(request(), { scope: { user: 'ada' } })).json()).result.content[0].text).toBe('ada');
  });

  it('types the scope end to end (checked by tsc)', () => {
    // @ts-expect-error the factory must produce the server's Scope
    const wrongFactory = () => createFetchHandler(server(), { scope: () => ({ user: 42 }) });
    // @ts-expect-error a fixed scope must be the server's Scope too
    const wrongInit = () => createFetchHandler(server())(post(ping), { scope: { name: 'x' } });
    expect([typeof wrongFactory, typeof wrongInit]).toEqual(['function', 'function']);
  });

  it('rejects bad options at construction', () => {
    expect(() => createFetchHandler(server(), { maxBodyBytes: 0 })).toThrow(TypeError);
    expect(() => createFetchHandler(server(), { mode: 'sse' as never })).toThrow(TypeError);
    expect(() => createFetchHandler(server(), { dnsRebinding: { allowedHosts: [''] } })).toThrow(TypeError);
  });
});
