/**
 * Issue 36, telemetry: one CLIENT span per proxied call, named by the method and the upstream, a
 * child of the handler's span and carrying the upstream's name; the upstream's latency as the
 * `mcp.gateway.upstream.duration` histogram.
 */
import { afterAll, expect, it } from 'vitest';
import type { Proxied } from '../../src/gateway/index.js';
import { MiniMCP } from '../../src/index.js';
import { otelHarness, parentOf } from '../support/otel.js';

const FIXTURE = ['--import', 'tsx', new URL('./servers/pid-stdio.ts', import.meta.url).pathname];
let proxied: Proxied | undefined;
afterAll(async () => {
  await proxied?.close();
});

it('a span per proxied call with the upstream name, and the upstream latency as a metric', async () => {
  const otel = otelHarness();
  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0', telemetry: otel.telemetry });
  proxied = await mcp.proxy({ stdio: [process.execPath, ...FIXTURE], name: 'pids', log: () => {} });
  const reply = await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'pid', arguments: {} } });
  expect(reply).toMatchObject({ result: { content: [{ type: 'text' }] } });
  const upstreamSpan = otel.spans().find((s) => s.name === 'tools/call pids');
  const handlerSpan = otel.spans().find((s) => s.name === 'handler tools/call pid');
  expect(upstreamSpan?.attributes).toMatchObject({ 'mcp.gateway.upstream': 'pids', 'mcp.method.name': 'tools/call' });
  expect(upstreamSpan && parentOf(upstreamSpan)).toBe(handlerSpan?.spanContext().spanId);
  const points = await otel.points('mcp.gateway.upstream.duration');
  const call = points.find((p) => p.attributes['mcp.method.name'] === 'tools/call');
  expect(call?.attributes['mcp.gateway.upstream']).toBe('pids');
  expect((call!.value as { count: number }).count).toBe(1);
}, 30_000);
