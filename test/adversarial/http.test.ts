/**
 * The node:http transport (`serve()`) under abuse, on real sockets: what timeouts exist (slow-loris
 * headers and bodies), bodies over the limit, floods past maxConcurrency, disconnects mid-stream
 * (time to abort), the Host / Origin guard, and header injection through values that reach headers.
 */
import { Agent } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { closedWithin, JSON_HEADERS, MODERN_META, openStream, percentile, send, sleep, socketTo } from './support/http-tools.js';
import { LINGER_BYTES } from '../../src/transports/http/linger.js';

const open: RunningServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
async function start(mcp: MiniMCP, options: Parameters<typeof serve>[1] = {}) {
  const running = await serve(mcp, { port: 0, onError: () => {}, ...options });
  open.push(running);
  return running;
}
const call = (id: number | string, name: string, extra: object = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra } });
const LEGACY = { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' };

describe('timeouts serve() leaves to node:http (slow-loris)', () => {
  it('reports the limits in force on the server serve() creates', async () => {
    const { server } = await start(new MiniMCP({ name: 't', version: '1' }));
    const facts = {
      headersTimeout: server.headersTimeout,
      requestTimeout: server.requestTimeout,
      keepAliveTimeout: server.keepAliveTimeout,
      timeout: server.timeout,
      maxHeadersCount: server.maxHeadersCount,
      maxRequestsPerSocket: server.maxRequestsPerSocket,
      maxConnections: server.maxConnections,
    };
    console.info(`[measure] serve() node:http limits: ${JSON.stringify(facts)}`);
    // Today serve() sets none of these, so node 20's defaults apply (docs/reliability.md). Tightening
    // them later is welcome; loosening or disabling them is not.
    expect(facts.headersTimeout).toBeGreaterThan(0);
    expect(facts.headersTimeout).toBeLessThanOrEqual(60_000);
    expect(facts.requestTimeout).toBeGreaterThan(0);
    expect(facts.requestTimeout).toBeLessThanOrEqual(300_000);
    expect(facts.keepAliveTimeout).toBeLessThanOrEqual(5_000);
  });

  it('200 connections dribbling headers are held (no limit under 60 s) while normal requests are still served', async () => {
    const mcp = new MiniMCP({ name: 't', version: '1' });
    mcp.tool('quick', {}, () => 'ok');
    const { url } = await start(mcp);
    const sockets = await Promise.all(Array.from({ length: 200 }, () => socketTo(url)));
    for (const s of sockets) s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `);
    const drip = setInterval(() => sockets.forEach((s) => s.write('a')), 200);
    try {
      const t0 = performance.now();
      const r = await send(url, { headers: LEGACY, body: call(1, 'quick') });
      const latency = performance.now() - t0;
      expect(r.status).toBe(200);
      const stillOpen = !(await closedWithin(sockets[0]!, 2_000));
      console.info(`[measure] 200 slow-loris header connections: a normal request took ${latency.toFixed(1)} ms; ` +
        `slow connections still open after 2 s: ${stillOpen} (node closes them after headersTimeout 60 s, checked every 30 s)`);
      expect(stillOpen).toBe(true);
    } finally {
      clearInterval(drip);
      for (const s of sockets) s.destroy();
    }
  });

  it('a body dribbled one byte at a time keeps the request (and no handler) open: nothing but requestTimeout (300 s) ends it', async () => {
    let handled = 0;
    const mcp = new MiniMCP({ name: 't', version: '1' });
    mcp.tool('quick', {}, () => (handled++, 'ok'));
    const { url } = await start(mcp);
    const body = JSON.stringify(call(1, 'quick'));
    const socket = await socketTo(url);
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    let i = 0;
    const drip = setInterval(() => i < body.length - 1 && socket.write(body[i++]!), 50);
    try {
      expect(await closedWithin(socket, 1_500)).toBe(false);
      expect(handled).toBe(0); // the handler only runs once the whole body arrived
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });
});

describe('bodies over the limit', () => {
  it('a 50 MiB chunked upload is answered 413 once LINGER_BYTES past the limit were dropped, and the connection closed', { retry: 1 }, async () => {
    const { url } = await start(new MiniMCP({ name: 't', version: '1' }), { maxBodyBytes: 1024 * 1024 });
    const socket = await socketTo(url);
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('utf8')));
    socket.on('error', () => {});
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    // Honour backpressure, so `sent` is what the server (and the socket buffers) took.
    while (sent < 50 * 1024 * 1024 && !answer && !socket.destroyed) {
      const flushed = socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
      sent += chunk.length;
      if (!flushed) await Promise.race([new Promise((r) => socket.once('drain', r)), sleep(500)]);
    }
    await closedWithin(socket, 2_000);
    console.info(`[measure] 413 after the client had sent ${(sent / 1024 / 1024).toFixed(1)} MiB of a 50 MiB upload (limit 1 MiB)`);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    // At most the limit, what lingering drops, and what the socket buffers on both sides held (the
    // 2 s bound may end the lingering earlier on a slow machine).
    expect(sent).toBeLessThan(1024 * 1024 + LINGER_BYTES + 16 * 1024 * 1024);
    socket.destroy();
    // One retry: on a loaded machine the client may not push LINGER_BYTES within LINGER_MS, and then the
    // time bound closes the connection under a still-sending client, which can lose the 413 (by design:
    // the bound stops a slow drip from holding the socket). Seen once in a full parallel run.
  });

  it('a lying Content-Length (larger than the body, then the client leaves) ends without a handler run or a crash', async () => {
    let handled = 0;
    const mcp = new MiniMCP({ name: 't', version: '1' });
    mcp.tool('quick', {}, () => (handled++, 'ok'));
    const { url } = await start(mcp);
    const socket = await socketTo(url);
    const body = JSON.stringify(call(1, 'quick'));
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 100}\r\n\r\n${body}`);
    await sleep(50);
    socket.destroy();
    await sleep(50);
    expect(handled).toBe(0);
    expect((await send(url, { headers: LEGACY, body: call(2, 'quick') })).status).toBe(200);
  });
});

describe('floods past maxConcurrency over HTTP', () => {
  it('answers the excess 503 with Retry-After at once; admitted requests complete; memory bounded', async () => {
    const mcp = new MiniMCP({ name: 'flood', version: '1', maxConcurrency: 10, maxQueue: 20, onError: () => {} });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    mcp.tool('slow', {}, () => gate.then(() => 'ok'));
    const { url } = await start(mcp);
    const agent = new Agent({ keepAlive: true, maxSockets: 600 });
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    const refusedAt: number[] = [];
    const all = Array.from({ length: 500 }, (_, i) =>
      send(url, { headers: LEGACY, body: call(i, 'slow'), agent }).then((r) => {
        if (r.status === 503) refusedAt.push(performance.now() - t0);
        return r;
      }));
    while (refusedAt.length < 470 && performance.now() - t0 < 10_000) await sleep(5);
    // With every slot and queue place taken, the latency of a refusal on a warm keep-alive socket:
    const warm: number[] = [];
    for (let i = 0; i < 50; i++) {
      const w0 = performance.now();
      const r = await send(url, { headers: LEGACY, body: call(`w${i}`, 'slow'), agent });
      warm.push(performance.now() - w0);
      expect(r.status).toBe(503);
    }
    console.info(`[measure] HTTP 503 latency on a warm socket while saturated: p50 ${percentile(warm, 50).toFixed(2)} ms, max ${Math.max(...warm).toFixed(2)} ms`);
    release();
    const replies = await Promise.all(all);
    agent.destroy();
    const refused = replies.filter((r) => r.status === 503);
    const ok = replies.filter((r) => r.status === 200);
    console.info(`[measure] HTTP flood: 500 concurrent requests, maxConcurrency 10 + queue 20: ${refused.length} x 503 (the last after ` +
      `${Math.max(...refusedAt).toFixed(0)} ms, p50 ${percentile(refusedAt, 50).toFixed(0)} ms), ${ok.length} x 200; ` +
      `RSS +${((process.memoryUsage().rss - before) / 1024 / 1024).toFixed(1)} MiB (client and server in one process)`);
    expect(refused).toHaveLength(470);
    expect(ok).toHaveLength(30);
    for (const r of refused) {
      expect(r.headers['retry-after']).toBe('1');
      expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 } });
    }
  });
});

describe('clients that disconnect mid-stream', () => {
  function waiter() {
    const mcp = new MiniMCP({ name: 'd', version: '1', onError: () => {} });
    const aborts: number[] = [];
    let started!: () => void;
    let next = new Promise<void>((r) => (started = r));
    mcp.tool('wait', {}, (_a, ctx) => {
      ctx.progress(1); // opens SSE when a progressToken was sent
      started();
      return new Promise((resolve) => ctx.signal.addEventListener('abort', () => (aborts.push(performance.now()), resolve('late'))));
    });
    return { mcp, aborts, nextStart: () => next, reset: () => (next = new Promise<void>((r) => (started = r))) };
  }

  it('the handler signal aborts promptly: 40 JSON waits and 40 SSE streams, latency distribution', async () => {
    const w = waiter();
    const { url } = await start(w.mcp);
    const latencies: Record<'json' | 'sse', number[]> = { json: [], sse: [] };
    for (const kind of ['json', 'sse'] as const) {
      for (let i = 0; i < 40; i++) {
        w.reset();
        const extra = kind === 'sse' ? { _meta: { progressToken: `t${i}` } } : {};
        const controller = new AbortController();
        const pending = fetch(url, { method: 'POST', headers: LEGACY, body: JSON.stringify(call(i, 'wait', extra)), signal: controller.signal })
          .then(async (r) => { await r.text(); }).catch(() => {});
        await w.nextStart();
        await sleep(2);
        const count = w.aborts.length;
        const t0 = performance.now();
        controller.abort();
        while (w.aborts.length === count && performance.now() - t0 < 2_000) await sleep(0);
        latencies[kind].push(w.aborts[count]! - t0);
        await pending;
      }
    }
    const fmt = (v: number[]) => `p50 ${percentile(v, 50).toFixed(1)} ms, p95 ${percentile(v, 95).toFixed(1)} ms, max ${Math.max(...v).toFixed(1)} ms`;
    console.info(`[measure] disconnect -> handler abort over node:http: JSON ${fmt(latencies.json)}; SSE ${fmt(latencies.sse)}`);
    expect(Math.max(...latencies.json, ...latencies.sse)).toBeLessThan(250);
  });
});

describe('the Host / Origin guard (defaults)', () => {
  const cases: [string, Record<string, string>, number][] = [
    ['Host 127.0.0.1:<port>', {}, 200],
    ['Host localhost:1234', { host: 'localhost:1234' }, 200],
    ['Host LOCALHOST', { host: 'LOCALHOST' }, 200],
    ['Host [::1]:80', { host: '[::1]:80' }, 200],
    ['Host evil.example', { host: 'evil.example' }, 403],
    ['Host localhost.evil.example', { host: 'localhost.evil.example' }, 403],
    ['Host 127.0.0.1.nip.io', { host: '127.0.0.1.nip.io' }, 403],
    ['Host localhost:abc', { host: 'localhost:abc' }, 403],
    ['Host localhost. (trailing dot)', { host: 'localhost.' }, 403],
    ['Host 2130706433 (decimal IP)', { host: '2130706433' }, 403],
    ['Origin http://localhost:5173 (another local port)', { origin: 'http://localhost:5173' }, 200],
    ['Origin https://127.0.0.1', { origin: 'https://127.0.0.1' }, 200],
    ['Origin http://evil.example', { origin: 'http://evil.example' }, 403],
    ['Origin null', { origin: 'null' }, 403],
    ['Origin file://', { origin: 'file://' }, 403],
    ['Origin http://localhost@evil.example', { origin: 'http://localhost@evil.example' }, 403],
    ['Origin http://127.0.0.1:80/ (trailing slash)', { origin: 'http://127.0.0.1:80/' }, 403],
    ['Origin chrome-extension://abc', { origin: 'chrome-extension://abc' }, 403],
  ];
  it.each(cases)('%s -> %s', async (_label, extra, status) => {
    const mcp = new MiniMCP({ name: 'g', version: '1' });
    const { url } = await start(mcp);
    const r = await send(url, { headers: { ...LEGACY, ...extra }, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(r.status).toBe(status);
    if (status === 403) expect(JSON.parse(r.body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Forbidden: Host or Origin not allowed' } });
  });

  it('an HTTP/1.0 request without Host is let through (documented: browsers always send Host)', async () => {
    const { url } = await start(new MiniMCP({ name: 'g', version: '1' }));
    const socket = await socketTo(url);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('utf8')));
    socket.write(`POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await closedWithin(socket, 2_000);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('header injection through values that reach response headers', () => {
  it('only Mcp-Session-Id echoes client data; it is base64url whatever initialize carried', async () => {
    const mcp = new MiniMCP({ name: 'h', version: '1' });
    const { url } = await start(mcp);
    const hostile = 'x\r\nSet-Cookie: pwned=1\r\n\r\n<script>é\u0000';
    const r = await send(url, {
      headers: JSON_HEADERS,
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { experimental: { [hostile]: hostile } }, clientInfo: { name: hostile, version: hostile } } },
    });
    expect(r.status).toBe(200);
    const session = r.headers['mcp-session-id'] as string;
    expect(session).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(session.length).toBeLessThanOrEqual(1024);
    const names = r.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names).toContain('mcp-session-id');
    expect(names.filter((n) => !['connection', 'content-length', 'content-type', 'date', 'keep-alive', 'mcp-session-id'].includes(n))).toEqual([]);
    expect(r.rawHeaders.join('\n')).not.toMatch(/set-cookie|pwned|script/i);
    // The session id round-trips: the next request with it is served.
    const next = await send(url, { headers: { ...LEGACY, 'mcp-session-id': session }, body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
    expect(next.status).toBe(200);
  });

  it('hostile request header values (session id, Mcp-Name, version) never come back as headers', async () => {
    const mcp = new MiniMCP({ name: 'h', version: '1' });
    mcp.tool('t', {}, () => 'ok');
    const { url } = await start(mcp);
    const hostileHeaders: Record<string, string>[] = [
      { 'mcp-session-id': 'a'.repeat(8_000) },
      { 'mcp-session-id': 'x.eyJ2IjoiMjAyNS0xMS0yNSIsImMiOnsiX19wcm90b19fIjp7InNhbXBsaW5nIjp7fX19fQ' },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': '=?base64?c2V0LWNvb2tpZTogeA0KeDogeQ==?=' },
      { 'mcp-protocol-version': 'Set-Cookie: x=1' },
    ];
    for (const extra of hostileHeaders) {
      const r = await send(url, { headers: { ...JSON_HEADERS, ...extra }, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', _meta: MODERN_META } } });
      const names = r.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
      expect(names.filter((n) => !['connection', 'content-length', 'content-type', 'date', 'keep-alive'].includes(n))).toEqual([]);
      expect(r.rawHeaders.join('\n')).not.toMatch(/set-cookie|pwned/i);
    }
  });
});

describe('SSE streams that outlive their client', () => {
  it('a listen stream whose client vanished stops receiving bus events and frees its subscription', async () => {
    const mcp = new MiniMCP({ name: 'l', version: '1', onError: () => {} });
    mcp.tool('t', {}, () => 'ok');
    const { url } = await start(mcp, { keepAliveMs: 50 });
    const headers = { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' };
    const body = { jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: MODERN_META } };
    const stream = await openStream(url, headers, body, (t) => t.includes('acknowledged'));
    mcp.tools.add({ name: 'x', handler: () => 'x' }); // fires tools/list_changed
    await sleep(20);
    expect(stream.text()).toContain('notifications/tools/list_changed');
    stream.req.destroy();
    await sleep(100);
    // Publishing after the client left must not throw or write to a dead socket.
    expect(() => mcp.tools.add({ name: 'y', handler: () => 'y' })).not.toThrow();
  });
});
