/** Skills over MCP: `PORT=N npx tsx examples/skills/server.ts` serves ./skills at http://127.0.0.1:N/mcp (docs/skills.md). */
import { MiniMCP } from '../../src/index.js';
import { serve } from '../../src/transports/http/node.js';

const mcp = new MiniMCP({ name: 'team-skills', version: '1.0.0' });
await mcp.skills(new URL('./skills', import.meta.url));
const { url } = await serve(mcp, { port: Number(process.env.PORT ?? 3000) });
console.error(`skills served at ${url}`);
