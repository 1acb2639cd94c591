/** The math example over Streamable HTTP: `npm start` (PORT=3000 by default), loopback only. */
import { serve } from '../../src/transports/http/node.js';
import { clusterOptions } from '../cluster.js';
import { legacyCurl, modernCurl } from './curl.js';
import { createMathServer } from './server.js';

const port = Number(process.env.PORT ?? 3000);
// The Server Card (SEP-2127) at <url>/server-card, and the catalogs at /.well-known/. Its version,
// title and description are the server's; set PUBLIC_URL to the address clients use in production.
const card = { name: 'com.example/minimcp-math', url: process.env.PUBLIC_URL };
const { url, close } = await serve(createMathServer(await clusterOptions()), { port, host: '127.0.0.1', card });

console.log(`MiniMCP math server listening on ${url}`);
console.log('Try it (2025-11-25: a handshake, then the call):');
for (const line of legacyCurl(url)) console.log(`  ${line}`);
console.log('Or in one request (2026-07-28: stateless):');
for (const line of modernCurl(url)) console.log(`  ${line}`);
console.log(`Server card: ${url}/server-card`);

// Ctrl+C: stop accepting, close open streams (their handlers are cancelled), then exit.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void close().then(() => process.exit(0)));
}
