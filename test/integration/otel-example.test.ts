/**
 * examples/otel over real HTTP with the official SDK v1 client: the SDK set up as the example does
 * (spans to an in-memory exporter instead of the console), a tool call that continues the client's
 * trace, and the handler's own `db.lookup` span under MiniMCP's handler span.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryMetricExporter, AggregationTemporality, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../../examples/otel/tracing.js';
import type { RunningServer } from '../../src/transports/http/node.js';
import { parentOf, traceparent } from '../support/otel.js';

const spans = new InMemorySpanExporter();
const metricsOut = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
let tracing: Tracing;
let server: RunningServer;
let client: Client;

beforeAll(async () => {
  tracing = startTracing(spans, new PeriodicExportingMetricReader({ exporter: metricsOut, exportIntervalMillis: 60_000 }));
  const { startTracedServer } = await import('../../examples/otel/server.js');
  server = await startTracedServer(0);
  client = new Client({ name: 'v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
});
afterAll(async () => {
  await client.close();
  await server.close();
  await tracing.shutdown();
});

describe('examples/otel', () => {
  it('continues the client trace: server span, handler span, then the handler\'s own db.lookup span', async () => {
    const tp = traceparent();
    const result = await client.callTool({ name: 'stock', arguments: { fruit: 'apple' }, _meta: { traceparent: tp.header } });
    expect(result.content).toEqual([{ type: 'text', text: '3 apple(s)' }]);
    const finished = spans.getFinishedSpans().filter((s) => s.spanContext().traceId === tp.traceId);
    const byName = new Map(finished.map((s) => [s.name, s]));
    expect([...byName.keys()].sort()).toEqual(['db.lookup', 'handler tools/call stock', 'tools/call stock']);
    expect(parentOf(byName.get('tools/call stock')!)).toBe(tp.spanId);
    expect(parentOf(byName.get('handler tools/call stock')!)).toBe(byName.get('tools/call stock')!.spanContext().spanId);
    expect(parentOf(byName.get('db.lookup')!)).toBe(byName.get('handler tools/call stock')!.spanContext().spanId);
    expect(byName.get('db.lookup')!.attributes).toEqual({ fruit: 'apple' });
  });

  it('records mcp.server.operation.duration through the global meter provider', async () => {
    await tracing.meterProvider.forceFlush();
    const names = metricsOut.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.descriptor.name)));
    expect(names).toContain('mcp.server.operation.duration');
    expect(names).toContain('minimcp.server.active_requests');
  });
});
