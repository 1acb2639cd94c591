/**
 * Issue 24, finding 10: a client must not mint span names. Before the fix every unknown tool or prompt
 * name became a span name (`tools/call <name>`, and `handler …`), one of them 3,000,020 characters
 * long, and client strings (names, the request id, the error message echoing them) went into span
 * attributes and status whatever their size.
 */
import { SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { otelHarness } from '../support/otel.js';

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const HUGE = 'x'.repeat(1_000_000);
/** Generous for a bounded name: the longest registered name here plus the method. */
const MAX_TEXT = 300;

function server(otel: ReturnType<typeof otelHarness>) {
  const mcp = new MiniMCP({ name: 'names', version: '1', onError: () => {}, telemetry: otel.telemetry });
  mcp.tool('add', {}, () => 'ok');
  mcp.prompt('greet', {}, () => 'hello');
  return mcp;
}

/** Every string a span carries: its name, its attribute values, its status message. */
const texts = (span: { name: string; attributes: Record<string, unknown>; status: { message?: string } }) =>
  [span.name, span.status.message ?? '', ...Object.values(span.attributes).filter((v): v is string => typeof v === 'string')];

describe('span names and attributes of client-chosen targets are bounded', () => {
  it('unknown tools and prompts share one span name per method; known ones keep theirs', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    for (let i = 0; i < 200; i++) {
      await mcp.dispatch({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: `nope-${i}`, arguments: {}, _meta: meta } });
      await mcp.dispatch({ jsonrpc: '2.0', id: i, method: 'prompts/get', params: { name: `nope-${i}`, _meta: meta } });
    }
    await mcp.dispatch({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: HUGE, arguments: {}, _meta: meta } });
    await mcp.dispatch({ jsonrpc: '2.0', id: 'known', method: 'tools/call', params: { name: 'add', arguments: {}, _meta: meta } });
    await mcp.dispatch({ jsonrpc: '2.0', id: 'known', method: 'prompts/get', params: { name: 'greet', _meta: meta } });
    const names = new Set(otel.spans().map((s) => s.name));
    expect([...names].sort()).toEqual([
      'handler prompts/get', 'handler prompts/get greet', 'handler tools/call', 'handler tools/call add',
      'prompts/get', 'prompts/get greet', 'tools/call', 'tools/call add',
    ]);
    const unknown = otel.spans().filter((s) => s.kind === SpanKind.SERVER && (s.name === 'tools/call' || s.name === 'prompts/get'));
    expect(unknown.length).toBe(401);
    for (const span of unknown) {
      expect(span.attributes['gen_ai.tool.name']).toBeUndefined();
      expect(span.attributes['gen_ai.prompt.name']).toBeUndefined();
    }
  });

  it('no client string in a span (name, attributes, status) is longer than the bound', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    await mcp.dispatch({ jsonrpc: '2.0', id: HUGE, method: 'tools/call', params: { name: HUGE, arguments: {}, _meta: meta } });
    await mcp.dispatch({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `test://${HUGE}`, _meta: meta } });
    await mcp.dispatch({ jsonrpc: '2.0', id: HUGE, method: 'tools/call', params: { name: 'add', arguments: {}, _meta: meta } });
    const spans = otel.spans();
    expect(spans.length).toBeGreaterThanOrEqual(3);
    for (const span of spans) for (const text of texts(span)) expect(text.length, span.name.slice(0, 40)).toBeLessThanOrEqual(MAX_TEXT);
  });

  it('the duration metric gets one series per known target, none per unknown name', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    for (let i = 0; i < 50; i++) await mcp.dispatch({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: `nope-${i}`, arguments: {}, _meta: meta } });
    await mcp.dispatch({ jsonrpc: '2.0', id: 'k', method: 'tools/call', params: { name: 'add', arguments: {}, _meta: meta } });
    const points = await otel.points('mcp.server.operation.duration');
    expect(points.length).toBe(2);
    expect(points.map((p) => p.attributes['gen_ai.tool.name']).sort()).toEqual(['add', undefined]);
  });
});
