/**
 * A host that owns the address may take over `serve()` (minimcp/node): `minimcp dev` installs one, so a
 * module that calls `serve()` itself is served by the dev server. A global symbol rather than an import,
 * so the production transport never loads the dev tool; only the host (src/dev/child.ts) sets it.
 */
const SERVE_OVERRIDE: unique symbol = Symbol.for('minimcp.dev') as never;

/** `serve(mcp, options)` as a host provides it; the types come from the two sides. */
export interface ServeOverride<Server = unknown, Options = unknown, Running = unknown> {
  serve(mcp: Server, options: Options): Promise<Running>;
}

type Slot = Record<symbol, ServeOverride | undefined>;

/** The override in force, if a host installed one. */
export function serveOverride<Server, Options, Running>(): ServeOverride<Server, Options, Running> | undefined {
  return (globalThis as unknown as Slot)[SERVE_OVERRIDE] as ServeOverride<Server, Options, Running> | undefined;
}

/** Installs `override` for every later `serve()` in this process (the dev child, before it loads the user's module). */
export function installServeOverride<Server, Options, Running>(override: ServeOverride<Server, Options, Running>): void {
  (globalThis as unknown as Slot)[SERVE_OVERRIDE] = override as ServeOverride;
}
