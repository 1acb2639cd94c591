/** The upstream of bench/gateway.mjs, on the built dist: one `noop` tool, over stdio or (PORT set) HTTP. */
import { MiniMCP } from '../../dist/index.js';

const mcp = new MiniMCP({ name: 'gateway-bench-upstream', version: '1.0.0' });
mcp.tool('noop', {}, () => 'ok');
if (process.env.PORT === undefined) {
  const { serveStdio } = await import('../../dist/transports/stdio.js');
  serveStdio(mcp);
} else {
  const { serve } = await import('../../dist/transports/http/node.js');
  const { url } = await serve(mcp, { port: Number(process.env.PORT) });
  console.log(url);
}
