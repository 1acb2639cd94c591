/** The conformance fixture over HTTP: `PORT=N npm run -s conformance:server` serves http://127.0.0.1:N/mcp. */
import { serve } from '../../src/transports/http/node.js';
import { clusterOptions } from '../cluster.js';
import { createConformanceFixture } from './fixture.js';

const port = Number(process.env.PORT ?? 3001);
const mcp = createConformanceFixture({ server: await clusterOptions() });
// Skills over MCP (SEP-2640): the sep-2640-* scenarios read these (skills/list, skills/get, directories).
await mcp.skills(new URL('./skills', import.meta.url));
const { url } = await serve(mcp, { port });
console.error(`MiniMCP conformance fixture listening at ${url}`);
