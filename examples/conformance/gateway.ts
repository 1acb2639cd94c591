/**
 * The conformance fixture behind the gateway: the fixture runs over stdio as a supervised child, and
 * a MiniMCP that proxies it serves http://127.0.0.1:PORT/mcp (`npm run conformance -- --gateway`).
 */
import { fileURLToPath } from 'node:url';
import { MiniMCP } from '../../src/index.js';
import { serve } from '../../src/transports/http/node.js';

const port = Number(process.env.PORT ?? 3001);
const mcp = new MiniMCP({ name: 'minimcp-conformance-gateway', version: '1.0.0', instructions: 'The conformance fixture, behind the gateway.' });
// 2026 to the fixture, so its own input_required results, -32021 and keys reach the client as they are.
await mcp.proxy({ stdio: [process.execPath, '--import', 'tsx', fileURLToPath(new URL('./stdio.ts', import.meta.url))], era: 'stateless', name: 'fixture' });
const { url } = await serve(mcp, { port });
console.error(`MiniMCP gateway in front of the conformance fixture, listening at ${url}`);
