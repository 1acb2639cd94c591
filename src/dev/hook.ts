/** How serve() (minimcp/node) hands its server to `minimcp dev` when a module calls it itself. */
import type { MiniMCP } from '../server.js';
import type { RunningServer, ServeOptions } from '../transports/http/node.js';

export const DEV_HOOK: unique symbol = Symbol.for('minimcp.dev') as never;

export interface DevHook {
  serve(mcp: MiniMCP<unknown>, options: ServeOptions<unknown> | undefined): Promise<RunningServer>;
}
