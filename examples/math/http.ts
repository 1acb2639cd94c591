/** The math example over Streamable HTTP: `npm start` (PORT=3000 by default), loopback only. */
import { serve } from '../../src/transports/http/node.js';
import { clusterOptions } from '../cluster.js';
import { createMathServer } from './server.js';

const port = Number(process.env.PORT ?? 3000);
const { url, close } = await serve(createMathServer(await clusterOptions()), { port, host: '127.0.0.1' });

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1.0' } },
});
console.log(`MiniMCP math server listening on ${url}`);
console.log('Try it:');
console.log(
  `  curl -i ${url} -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d '${initialize}'`,
);

// Ctrl+C: stop accepting, close open streams (their handlers are cancelled), then exit.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void close().then(() => process.exit(0)));
}
