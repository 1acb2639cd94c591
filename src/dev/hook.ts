/**
 * How serve() (minimcp/node) hands its server to `minimcp dev` when a module calls it itself. No
 * imports: node.ts reads this and src/dev/child.ts sets it, and neither may depend on the other.
 */
export const DEV_HOOK: unique symbol = Symbol.for('minimcp.dev') as never;

/** `serve(mcp, options)` as the dev child provides it; the types come from the two sides. */
export interface DevHook<Server = unknown, Options = unknown, Running = unknown> {
  serve(mcp: Server, options: Options): Promise<Running>;
}
