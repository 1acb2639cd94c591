/** CORS (`cors: { origins }`): preflight, exposed headers, off by default, and its place in the DNS-rebinding guard. */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createFetchHandler, type FetchHandlerOptions } from '../../src/transports/http/index.js';
import { serve } from '../../src/transports/http/node.js';

const URL_ = 'http://127.0.0.1:3000/mcp';
const APP = 'https://app.example.com';
const BOTH = 'application/json, text/event-stream';
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

function server() {
  const mcp = new MiniMCP({ name: 'cors', version: '1', onError: () => {} });
  mcp.tool('echo', {}, (args) => JSON.stringify(args));
  return mcp;
}

const handle = (request: Request, options: FetchHandlerOptions<unknown>) => createFetchHandler(server(), options)(request);
const preflight = (origin: string, requestHeaders?: string) =>
  new Request(URL_, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', ...(requestHeaders && { 'access-control-request-headers': requestHeaders }) },
  });
const post = (origin: string | undefined, body: object = initialize) =>
  new Request(URL_, { method: 'POST', headers: { 'content-type': 'application/json', accept: BOTH, ...(origin && { origin }) }, body: JSON.stringify(body) });

describe('CORS off (the default)', () => {
  it('a preflight is 405 (403 from a foreign origin) and answers carry no CORS headers', async () => {
    expect((await handle(preflight(APP), {})).status).toBe(403);
    const response = await handle(preflight('http://localhost:5173'), {});
    expect(response.status).toBe(405);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const ok = await handle(post(undefined), {});
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a foreign Origin is still refused by the DNS-rebinding guard', async () => {
    expect((await handle(post(APP), {})).status).toBe(403);
  });
});

describe('CORS on', () => {
  const options = { cors: { origins: [APP] } };

  it('answers the preflight with the allowances, echoing the requested headers', async () => {
    const response = await handle(preflight(APP, 'content-type, mcp-protocol-version, mcp-method, mcp-param-region'), options);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('vary')).toBe('Origin');
    expect(response.headers.get('access-control-allow-methods')).toBe('POST, GET, OPTIONS');
    expect(response.headers.get('access-control-allow-headers')).toBe('content-type, mcp-protocol-version, mcp-method, mcp-param-region');
    expect(response.headers.get('access-control-max-age')).toBe('600');
  });

  it('a listed origin passes the Origin check and may read the session and version headers', async () => {
    const response = await handle(post(APP), options);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    const exposed = response.headers.get('access-control-expose-headers')!.split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name']));
    expect(response.headers.get('mcp-session-id')).toEqual(expect.any(String));
  });

  it('errors carry the CORS headers too, so a browser script can read them', async () => {
    const response = await handle(post(APP, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } }), options);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    const bad = await handle(new Request(URL_, { method: 'POST', headers: { origin: APP, 'content-type': 'text/plain', accept: BOTH }, body: '{}' }), options);
    expect(bad.status).toBe(415);
    expect(bad.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('an unlisted origin gets no CORS headers: its preflight is 403 and its POST fails the guard', async () => {
    const other = 'https://evil.example';
    const refused = await handle(preflight(other), options);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const response = await handle(post(other), options);
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('the Host check stays: a rebinding page on a listed origin with a foreign Host is refused', async () => {
    const rebound = new Request('http://evil.example:3000/mcp', { method: 'POST', headers: { origin: APP, 'content-type': 'application/json', accept: BOTH }, body: JSON.stringify(initialize) });
    expect((await handle(rebound, options)).status).toBe(403);
  });

  it("'*' allows any origin with a wildcard answer; maxAgeSeconds is sent", async () => {
    const response = await handle(preflight('http://anything.test:8080'), { cors: { origins: '*', maxAgeSeconds: 5 } });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-max-age')).toBe('5');
    expect(response.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
  });

  it('bad options are refused at creation', () => {
    expect(() => createFetchHandler(server(), { cors: { origins: ['app.example.com'] } })).toThrow(/cors.origins/);
    expect(() => createFetchHandler(server(), { cors: {} as never })).toThrow(/cors.origins/);
    expect(() => createFetchHandler(server(), { cors: { origins: [APP], maxAgeSeconds: -1 } })).toThrow(/maxAgeSeconds/);
  });
});

describe('CORS on the node handler, over real HTTP', () => {
  it('preflight and a streamed (SSE) answer both carry the headers', async () => {
    const mcp = server();
    mcp.tool('stream', {}, async (_a, ctx) => {
      ctx.log('info', 'working');
      return 'streamed';
    });
    const running = await serve(mcp, { cors: { origins: [APP] } });
    try {
      const options = await fetch(running.url, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'POST' } });
      expect(options.status).toBe(204);
      expect(options.headers.get('access-control-allow-origin')).toBe(APP);
      // fetch() cannot set Origin on a POST from Node in every version; node:http can.
      const { headers, body } = await new Promise<{ headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const req = httpRequest(running.url, { method: 'POST', headers: { origin: APP, 'content-type': 'application/json', accept: BOTH } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ headers: res.headers, body: text }));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'stream', arguments: {} } }));
      });
      expect(headers['content-type']).toBe('text/event-stream');
      expect(headers['access-control-allow-origin']).toBe(APP);
      expect(headers['access-control-expose-headers']).toContain('mcp-session-id');
      expect(body).toContain('streamed');
    } finally {
      await running.close();
    }
  });
});
