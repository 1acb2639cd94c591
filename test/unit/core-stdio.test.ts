/** The stdio transport over in-memory streams: framing, bad bytes, long lines, concurrency, EOF. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { serveStdio, type StdioOptions } from '../../src/transports/stdio.js';
import { handshakeLine, isHandshakeReply } from '../support/stdio-handshake.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A served stream, opened with `initialize` (its reply is not collected) unless `handshake` is false. */
function setup(configure?: (mcp: MiniMCP) => void, options: Partial<StdioOptions<unknown>> & { handshake?: boolean } = {}) {
  // A tiny maxLineBytes (the line-limit tests, which only ping) would refuse the handshake itself.
  const { handshake = options.maxLineBytes === undefined, ...stdioOptions } = options;
  const mcp = new MiniMCP({ name: 'stdio', version: '1.0.0', onError: () => {} });
  configure?.(mcp);
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: any[] = [];
  const raw: string[] = [];
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const message = JSON.parse(line);
      if (isHandshakeReply(message)) continue;
      raw.push(line);
      lines.push(message);
    }
  });
  const conn = serveStdio(mcp, { input, output, exitOnEnd: false, guardStdout: false, ...stdioOptions });
  if (handshake) input.write(handshakeLine);
  const waitFor = async (count: number, timeoutMs = 2000) => {
    const until = Date.now() + timeoutMs;
    while (lines.length < count) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${count} lines, got ${JSON.stringify(lines)}`);
      await sleep(2);
    }
    return lines;
  };
  return { mcp, input, output, lines, raw, conn, waitFor, partial: () => buffered };
}

const line = (msg: unknown) => `${JSON.stringify(msg)}\n`;
const ping = (id: number | string) => line({ jsonrpc: '2.0', id, method: 'ping' });

describe('framing', () => {
  it('answers one line per message, with nothing else on stdout', async () => {
    const s = setup();
    s.input.write(ping(1));
    s.input.write(ping(2));
    await s.waitFor(2);
    expect(s.lines).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', id: 2, result: {} }]);
    expect(s.raw).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}', '{"jsonrpc":"2.0","id":2,"result":{}}']);
    s.input.end();
    await s.conn.closed;
    expect(s.partial()).toBe('');
  });

  it('handles several messages in one chunk and one message split over chunks (multi-byte char cut)', async () => {
    const s = setup((m) => m.tool('echo', { input: { type: 'object', properties: { t: { type: 'string' } } } }, (a) => String(a.t)));
    const msg = Buffer.from(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { t: 'héllo 東京' } } }));
    const cut = msg.indexOf(Buffer.from('東')) + 1; // inside the 3-byte character
    s.input.write(Buffer.concat([Buffer.from(ping(1)), Buffer.from(ping(2)), msg.subarray(0, cut)]));
    await sleep(5);
    s.input.write(msg.subarray(cut));
    await s.waitFor(3);
    expect(s.lines.map((l) => l.id)).toEqual([1, 2, 3]);
    expect(s.lines[2].result.content[0].text).toBe('héllo 東京');
  });

  it('accepts CRLF line endings', async () => {
    const s = setup();
    s.input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n{"jsonrpc":"2.0","id":2,"method":"ping"}\r\n');
    await s.waitFor(2);
    expect(s.lines).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('skips blank lines without answering', async () => {
    const s = setup();
    s.input.write('\n   \n\r\n');
    s.input.write(ping(1));
    await s.waitFor(1);
    await sleep(10);
    expect(s.lines).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('handles a last line without newline at EOF', async () => {
    const s = setup();
    s.input.write(ping(1));
    s.input.end('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    await s.conn.closed;
    expect(s.lines).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('does not answer notifications', async () => {
    const s = setup();
    s.input.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    s.input.write(ping(9));
    s.input.end();
    await s.conn.closed;
    expect(s.lines).toEqual([{ jsonrpc: '2.0', id: 9, result: {} }]);
  });
});

describe('bad input keeps the stream going', () => {
  it('an invalid UTF-8 line is -32700 with id null, and the next line still works', async () => {
    const s = setup();
    s.input.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","x":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]));
    s.input.write(ping(2));
    await s.waitFor(2);
    expect(s.lines[0]).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid UTF-8' } });
    expect(s.lines[1]).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('in one chunk of many lines only the invalid UTF-8 one is refused; CRLF, blank lines and a character cut between chunks are read as before', async () => {
    const s = setup();
    const bad = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":2,"method":"ping","x":"'), Buffer.from([0xff]), Buffer.from('"}\n')]);
    s.input.write(Buffer.concat([Buffer.from(`${ping(1).trimEnd()}\r\n\n`), bad, Buffer.from(ping(3)), Buffer.from('{"jsonrpc":"2.0","id":4,"method":"ping","params":{"s":"'), Buffer.from([0xc3])]));
    s.input.write(Buffer.concat([Buffer.from([0xa9]), Buffer.from('"}}\r\n')])); // the rest of an é cut between chunks
    await s.waitFor(4);
    expect(s.lines).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid UTF-8' } },
      { jsonrpc: '2.0', id: 3, result: {} },
      { jsonrpc: '2.0', id: 4, result: {} },
    ]);
  });

  it('invalid JSON is -32700 and the stream goes on', async () => {
    const s = setup();
    s.input.write('{oops\n');
    s.input.write(ping(2));
    await s.waitFor(2);
    expect(s.lines[0]).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: invalid JSON' } });
    expect(s.lines[1]).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('an over-long line (in one chunk) is -32600 and the stream goes on', async () => {
    const s = setup(undefined, { maxLineBytes: 100 });
    s.input.write(line({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(200) } }));
    s.input.write(ping(2));
    await s.waitFor(2);
    expect(s.lines[0]).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the message is longer than 100 bytes' } });
    expect(s.lines[1]).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('an over-long line spread over many chunks is answered once and skipped to its newline', async () => {
    const s = setup(undefined, { maxLineBytes: 100 });
    s.input.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
    for (let i = 0; i < 5; i++) {
      s.input.write('y'.repeat(60));
      await sleep(1);
    }
    s.input.write('"}}\n');
    s.input.write(ping(2));
    await s.waitFor(2);
    await sleep(10);
    expect(s.lines).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the message is longer than 100 bytes' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('a line of exactly maxLineBytes is accepted', async () => {
    const s = setup(undefined, { maxLineBytes: 100 });
    const base = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":""}}';
    const msg = base.replace('"p":""', `"p":"${'z'.repeat(100 - base.length)}"`);
    expect(Buffer.byteLength(msg)).toBe(100);
    s.input.write(`${msg}\n`);
    await s.waitFor(1);
    expect(s.lines[0]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('an invalid request line is -32600 and the stream goes on', async () => {
    const s = setup();
    s.input.write('[1,2]\n');
    s.input.write(ping(2));
    await s.waitFor(2);
    expect(s.lines[0]).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: batches are not supported' } });
    expect(s.lines[1]).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });
});

describe('concurrency and shutdown', () => {
  it('a slow request does not block a fast one', async () => {
    const s = setup((m) => {
      m.tool('slow', {}, async () => { await sleep(60); return 'slow'; });
      m.tool('fast', {}, () => 'fast');
    });
    s.input.write(line({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'slow' } }));
    s.input.write(line({ jsonrpc: '2.0', id: 'fast', method: 'tools/call', params: { name: 'fast' } }));
    await s.waitFor(2);
    expect(s.lines.map((l) => l.id)).toEqual(['fast', 'slow']);
  });

  it('closed resolves only after in-flight work completed at EOF', async () => {
    const s = setup((m) => m.tool('slow', {}, async () => { await sleep(50); return 'done'; }));
    let closed = false;
    void s.conn.closed.then(() => (closed = true));
    s.input.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } }));
    s.input.end();
    await sleep(15);
    expect(closed).toBe(false);
    await s.conn.closed;
    expect(s.lines).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'done' }] } }]);
  });

  it('notifications/cancelled over the stream aborts the request and sends no reply for it', async () => {
    let aborted = false;
    const s = setup((m) => m.tool('wait', {}, (_a, ctx) => new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => { aborted = true; resolve('late'); });
    })));
    s.input.write(line({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'wait' } }));
    await sleep(5);
    s.input.write(line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w' } }));
    s.input.write(ping(2));
    await s.waitFor(1);
    s.input.end();
    await s.conn.closed;
    expect(aborted).toBe(true);
    expect(s.lines).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('progress and logs of a request are written to the stream before its reply', async () => {
    const s = setup((m) => m.tool('p', {}, (_a, ctx) => { ctx.progress(1, 2); ctx.log('info', 'hi'); return 'ok'; }));
    s.input.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'p', _meta: { progressToken: 'pt' } } }));
    await s.waitFor(3);
    expect(s.lines).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'pt', progress: 1, total: 2 } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } },
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }] } },
    ]);
  });

  it('keeps 2025 connection state across lines (setLevel filters later logs)', async () => {
    const s = setup((m) => m.tool('l', {}, (_a, ctx) => { ctx.log('debug', 'd'); ctx.log('error', 'e'); return 'ok'; }), { handshake: false });
    s.input.write(line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }));
    await s.waitFor(1);
    expect(s.lines[0].result.protocolVersion).toBe('2025-06-18');
    s.input.write(line({ jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'error' } }));
    await s.waitFor(2);
    s.input.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'l' } }));
    await s.waitFor(4);
    expect(s.lines.slice(2)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'e' } },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'ok' }] } },
    ]);
  });

  it('refuses a request with neither initialize before it nor the 2026 _meta (-32602 naming both ways in)', async () => {
    let ran = 0;
    const s = setup((m) => m.tool('t', {}, () => String(++ran)), { handshake: false });
    const modern = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    s.input.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } }));
    s.input.write(ping(2)); // allowed before initialize
    s.input.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 't', _meta: modern } }));
    await s.waitFor(3);
    const byId = new Map(s.lines.map((l) => [l.id, l]));
    expect(byId.get(1).error.code).toBe(-32602);
    expect(byId.get(1).error.message).toMatch(/send initialize first.*io\.modelcontextprotocol\/protocolVersion/);
    expect(byId.get(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(byId.get(3).result.content).toEqual([{ type: 'text', text: '1' }]);
    s.input.write(handshakeLine);
    s.input.write(line({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 't' } }));
    await s.waitFor(4);
    expect(s.lines[3]).toEqual({ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: '2' }] } });
    expect(ran).toBe(2); // the refused request never ran
  });

  it('sends list_changed to an initialized 2025 client', async () => {
    const s = setup((m) => m.tool('a', {}, () => 'a'));
    s.mcp.tool('before-init', {}, () => 'x'); // not initialized yet: nothing sent
    s.input.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await sleep(5);
    expect(s.lines).toEqual([]);
    s.mcp.tool('b', {}, () => 'b');
    await s.waitFor(1);
    expect(s.lines).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
  });

  it('closed resolves after shutdownGraceMs when a handler never finishes, and its signal is aborted', async () => {
    let signal: AbortSignal | undefined;
    const s = setup((m) => m.tool('hang', {}, (_a, ctx) => { signal = ctx.signal; return new Promise(() => {}); }), { shutdownGraceMs: 30 });
    s.input.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hang' } }));
    await sleep(5);
    const started = Date.now();
    s.input.end();
    await s.conn.closed;
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(25);
    expect(took).toBeLessThan(1000);
    expect(signal?.aborted).toBe(true);
  });

  it('serves 2026 requests over the stream (discover, then a tool call with resultType)', async () => {
    const s = setup((m) => m.tool('t', {}, () => 'ok'));
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    s.input.write(line({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: meta } }));
    await s.waitFor(1);
    expect(s.lines[0].result.supportedVersions).toEqual(['2026-07-28']);
    expect(s.lines[0].result.resultType).toBe('complete');
    s.input.write(line({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 't', _meta: meta } }));
    s.input.write(line({ jsonrpc: '2.0', id: 'p', method: 'ping', params: { _meta: meta } }));
    await s.waitFor(3);
    expect(s.lines.slice(1).sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual([
      { jsonrpc: '2.0', id: 'c', result: { content: [{ type: 'text', text: 'ok' }], resultType: 'complete' } },
      { jsonrpc: '2.0', id: 'p', error: { code: -32601, message: 'Method not found: ping' } },
    ]);
  });

  it('close() stops reading and resolves closed', async () => {
    const s = setup();
    s.input.write(ping(1));
    await s.waitFor(1);
    await s.conn.close();
    await s.conn.closed;
    s.input.write(ping(2));
    await sleep(10);
    expect(s.lines).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });
});
