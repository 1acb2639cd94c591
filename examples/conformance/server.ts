/** The conformance fixture over HTTP: `PORT=N npm run -s conformance:server` serves http://127.0.0.1:N/mcp. */
import { serve } from '../../src/transports/http/node.js';
import { clusterOptions } from '../cluster.js';
import { createConformanceFixture } from './fixture.js';

const port = Number(process.env.PORT ?? 3001);
const { url } = await serve(createConformanceFixture({ server: await clusterOptions() }), { port });
console.error(`MiniMCP conformance fixture listening at ${url}`);
