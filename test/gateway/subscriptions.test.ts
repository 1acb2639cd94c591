/**
 * Issue 36, subscriptions: a 2026 client's `subscriptions/listen` with `resourceSubscriptions`, for a
 * URI of a proxied upstream (here in a namespace), subscribes upstream; the upstream's update reaches
 * the listen stream under the namespaced URI.
 */
import { afterAll, expect, it } from 'vitest';
import type { Proxied } from '../../src/gateway/index.js';
import { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';

const FIXTURE = ['--import', 'tsx', new URL('./servers/pid-stdio.ts', import.meta.url).pathname];
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
let proxied: Proxied | undefined;
let running: RunningServer | undefined;
afterAll(async () => {
  await running?.close();
  await proxied?.close();
});

const post = (url: string, method: string, params: object, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST', signal,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(method === 'tools/call' && { 'mcp-name': 'memo_touch' }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }),
  });

it("a 2026 listen stream's resourceSubscriptions subscribe upstream; the upstream's update arrives namespaced", async () => {
  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {}, onDebug: () => {} });
  proxied = await mcp.proxy('memo', { stdio: [process.execPath, ...FIXTURE], log: () => {} });
  running = await serve(mcp, { port: 0 });
  const controller = new AbortController();
  const listen = await post(running.url, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['memo+memo://note'] } }, controller.signal);
  expect(listen.headers.get('content-type')).toContain('text/event-stream');
  const reader = listen.body!.getReader();
  let seen = '';
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      seen += new TextDecoder().decode(value);
    }
  })().catch(() => {});
  await expect.poll(() => seen, { timeout: 5_000 }).toContain('notifications/subscriptions/acknowledged');
  await new Promise((r) => setTimeout(r, 200)); // the upstream subscription is on its way
  expect(await (await post(running.url, 'tools/call', { name: 'memo_touch', arguments: {} })).json()).toMatchObject({ result: { content: [{ text: 'touched' }] } });
  await expect.poll(() => seen, { timeout: 5_000 }).toContain('"uri":"memo+memo://note"');
  controller.abort();
  await reading;
}, 30_000);
