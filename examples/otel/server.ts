/**
 * A traced server: `openTelemetry()` from minimcp/otel makes one SERVER span per request (its parent
 * is the client's `_meta.traceparent`, else the HTTP `traceparent` header), a child span for the
 * handler, and the `mcp.server.operation.duration` histogram. The handler's own work is a span too:
 * started the usual OpenTelemetry way, it lands under the handler span by itself.
 */
import { trace } from '@opentelemetry/api';
import { MiniMCP } from '../../src/index.js';
import { openTelemetry } from '../../src/otel/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';

const tracer = trace.getTracer('otel-example');

/** Stands in for a database: what a real handler would trace. */
const STOCK: Readonly<Record<string, number>> = { apple: 3, pear: 0 };

export function createTracedMcp(): MiniMCP {
  const mcp = new MiniMCP({ name: 'otel-example', version: '1.0.0', telemetry: openTelemetry() });
  mcp.tool(
    'stock',
    { description: 'How many of a fruit are in stock', input: { type: 'object', properties: { fruit: { type: 'string' } }, required: ['fruit'] } },
    async ({ fruit }) =>
      tracer.startActiveSpan('db.lookup', async (span) => {
        span.setAttribute('fruit', fruit);
        await new Promise((resolve) => setTimeout(resolve, 2));
        span.end();
        return Object.hasOwn(STOCK, fruit) ? `${STOCK[fruit]} ${fruit}(s)` : `no ${fruit} here`;
      }),
  );
  return mcp;
}

export function startTracedServer(port = 0, mcp = createTracedMcp()): Promise<RunningServer> {
  return serve(mcp, { port });
}
