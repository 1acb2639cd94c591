/**
 * Issue 36: a 2025 HTTP upstream that closes a request's SSE stream before its answer (SEP-1699
 * polling, `ctx.closeStream()`) is resumed by the gateway with a GET carrying the last event id, and
 * the close is passed on: a 2025 caller over HTTP sees its own stream closed and resumes it the same way.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { serve } from '../../src/transports/http/node.js';

const closers: (() => Promise<void>)[] = [];
let gateway: MiniMCP;
let gatewayUrl: string;

beforeAll(async () => {
  const upstream = new MiniMCP({ name: 'upstream', version: '1.0.0' });
  upstream.tool('poll', { description: 'Closes its stream, then answers' }, async (_args, ctx) => {
    ctx.closeStream();
    await new Promise((resolve) => setTimeout(resolve, 100));
    return 'resumed';
  });
  const running = await serve(upstream, { port: 0 });
  closers.push(() => running.close());
  gateway = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {} });
  const proxied = await gateway.proxy({ url: running.url, era: 'handshake', log: () => {} });
  closers.push(() => proxied.close());
  const front = await serve(gateway, { port: 0 });
  closers.push(() => front.close());
  gatewayUrl = front.url;
}, 30_000);
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const META_2026 = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

it("the answer of an upstream that closed the request's stream arrives (the gateway resumes it)", async () => {
  const answer = (await gateway.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'poll', arguments: {}, _meta: META_2026 } })) as { result?: unknown; error?: unknown };
  expect(answer.error).toBeUndefined();
  expect(answer.result).toMatchObject({ content: [{ type: 'text', text: 'resumed' }] });
}, 30_000);

/** Reads an event stream until `until` holds for the text so far, or it ends (at most 10 s). */
async function readEvents(response: Response, until: (text: string) => boolean): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const stop = setTimeout(() => void reader.cancel(), 10_000);
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      if (until(text)) break;
    }
  } finally {
    clearTimeout(stop);
    await reader.cancel().catch(() => {});
  }
  return text;
}

it("a 2025 caller over HTTP sees its stream closed before the answer, and resumes it with Last-Event-ID", async () => {
  const version = '2025-11-25';
  const post = (body: object, session?: string) =>
    fetch(gatewayUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version, ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body) });
  const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  const session = init.headers.get('mcp-session-id')!;
  await init.body?.cancel();
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).body?.cancel();
  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'poll', arguments: {} } }, session);
  expect(call.headers.get('content-type')).toContain('text/event-stream');
  const first = await readEvents(call, () => false); // the gateway ends it early
  expect(first).not.toContain('resumed');
  const ids = [...first.matchAll(/^id: ?(.+)$/gm)].map((m) => m[1]!.trim());
  expect(ids.length).toBeGreaterThan(0);
  const resume = await fetch(gatewayUrl, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': version, 'mcp-session-id': session, 'last-event-id': ids.at(-1)! } });
  expect(resume.status).toBe(200);
  const rest = await readEvents(resume, (text) => text.includes('resumed'));
  expect(rest).toContain('"id":2');
  expect(rest).toContain('resumed');
}, 30_000);
