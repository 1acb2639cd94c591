/** The MCP Apps example on http://127.0.0.1:3000/mcp: `npx tsx examples/apps/http.ts` (PORT to change it). */
import { serve } from '../../src/transports/http/node.js';
import { createDiceMcp } from './server.js';

const { url, close } = await serve(createDiceMcp(), { port: Number(process.env.PORT ?? 3000) });
console.log(`MiniMCP dice app listening on ${url}: connect a host that supports MCP Apps and ask it to roll dice`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void close().then(() => process.exit(0)));
}
