/** MiniMCP over HTTP on 127.0.0.1:$PORT/mcp; MODE=json (plain HTTP) or streamable (default); TELEMETRY=otel traces every request. */
import { serve } from 'minimcp/node';
import { createBenchServer } from './minimcp-tools.js';

const mode = process.env.MODE === 'json' ? 'json' : 'streamable';
const telemetry = process.env.TELEMETRY === 'otel' ? (await import('./minimcp-otel.js')).benchTelemetry() : undefined;
await serve(createBenchServer({ telemetry }), { port: Number(process.env.PORT ?? 3000), host: '127.0.0.1', path: '/mcp', mode });
