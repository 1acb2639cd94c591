/** The traced example on http://127.0.0.1:3000/mcp: `npx tsx examples/otel/http.ts` (PORT to change it). Spans print to the console. */
import { startTracing } from './tracing.js';

// The SDK first, then the server (imported after, so nothing runs before tracing is set up).
const tracing = startTracing();
const { startTracedServer } = await import('./server.js');
const { url, close } = await startTracedServer(Number(process.env.PORT ?? 3000));
console.log(`MiniMCP traced example listening on ${url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void close().then(() => tracing.shutdown()).then(() => process.exit(0)));
}
