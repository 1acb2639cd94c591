/** The auth example on http://127.0.0.1:3000/mcp: `npx tsx examples/auth/http.ts` (PORT to change it). */
import { startAuthServer } from './server.js';

const { url, close } = await startAuthServer({ port: Number(process.env.PORT ?? 3000) });
const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1.0' } } });
console.log(`MiniMCP auth example listening on ${url}`);
console.log(`Metadata: curl ${new URL('/.well-known/oauth-protected-resource', url)}`);
console.log(`Without a token (401): curl -i ${url} -H 'Content-Type: application/json' -d '${call}'`);
console.log(`With one: add -H 'Authorization: Bearer demo-token-alice'`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void close().then(() => process.exit(0)));
}
