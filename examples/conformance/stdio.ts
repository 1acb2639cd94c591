/** The conformance fixture over stdio: what `npm run conformance -- --gateway` puts behind the gateway. */
import { serveStdio } from '../../src/transports/stdio.js';
import { createConformanceFixture } from './fixture.js';

const mcp = createConformanceFixture();
await mcp.skills(new URL('./skills', import.meta.url));
serveStdio(mcp);
