/** The roles example on http://127.0.0.1:3000/mcp: `npx tsx examples/roles/http.ts` (PORT to change it). */
import { startRolesServer } from './server.js';

const { url, close } = await startRolesServer(Number(process.env.PORT ?? 3000));
console.log(`MiniMCP roles example listening on ${url}`);
console.log('Tokens: token-ada (admin, billing) and token-gus (no roles), e.g. -H "Authorization: Bearer token-gus"');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void close().then(() => process.exit(0)));
}
