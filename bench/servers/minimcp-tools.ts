/** The benchmark tools on a MiniMCP server, shared by the HTTP and stdio entries. */
import { MiniMCP, type MiniMCPOptions } from 'minimcp';
import { WORK } from './work.mjs';

/** `options` adds to the bench settings (the cluster member passes its shared state). */
export function createBenchServer(options: Partial<MiniMCPOptions> = {}): MiniMCP {
  const mcp = new MiniMCP({ name: 'bench-minimcp', version: '1.0.0', maxConcurrency: 1024, ...options });
  for (const [name, work] of Object.entries(WORK)) {
    mcp.tool(name, {}, () => work());
    // The SSE path: one progress notification (sent only when the request has a progressToken) turns
    // the Streamable HTTP answer into an event stream.
    mcp.tool(`${name}_sse`, {}, (_args, ctx) => {
      ctx.progress(1);
      return work();
    });
  }
  return mcp;
}
