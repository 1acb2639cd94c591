/**
 * `minimcp/hono`: MiniMCP as a Hono handler, on any runtime Hono runs on. Hono is only a type here;
 * the work is the fetch handler's, fed with the context's Web Request.
 */
import type { Context, Env } from 'hono';
import type { MiniMCP } from '../server.js';
import { createFetchHandler } from '../transports/http/fetch-handler.js';
import type { HttpOptions, ScopeFacts } from '../transports/http/options.js';
import type { HttpAuth } from '../transports/http/auth-gate.js';
import type { ScopedOptions } from '../transports/scoped-options.js';

/** E defaults to `any` as in Hono; annotate the factory's `c: Context<AppEnv>` to type `c.get()`. */
export interface HonoOptions<Scope, E extends Env = any, Auth extends HttpAuth | undefined = HttpAuth | undefined> extends HttpOptions {
  /** `oauthResourceServer()` from minimcp/auth (see HttpOptions); given here, the scope factory's `auth` is typed as present. */
  auth?: Auth;
  /**
   * Who is calling, from the Hono context (`c.get(...)`, `c.req.header(...)`) and the verified token
   * (`auth`, with the `auth` option: the factory runs after authentication). Throw an McpError with
   * httpStatus 401 or 403 to refuse.
   */
  scope?: (c: Context<E>, facts: ScopeFacts<Auth>) => Scope | Promise<Scope>;
}

/**
 * A handler for every method of the MCP endpoint: mount it with `app.all('/mcp', ...)` so GET and
 * DELETE get the protocol's 405.
 *
 * ```ts
 * app.all('/mcp', mcpHono(mcp, { scope: (c) => c.get('user') }));
 * ```
 */
export function mcpHono<Scope, E extends Env = any, Auth extends HttpAuth | undefined = HttpAuth | undefined>(
  mcp: MiniMCP<Scope>,
  ...options: ScopedOptions<Scope, HonoOptions<NoInfer<Scope>, E, Auth>>
): (c: Context<E>) => Promise<Response>;
export function mcpHono<Scope, E extends Env = any>(
  mcp: MiniMCP<Scope>,
  options: HonoOptions<Scope, E> = {},
): (c: Context<E>) => Promise<Response> {
  const { scope, ...http } = options;
  if (scope !== undefined && typeof scope !== 'function') throw new TypeError('mcpHono option scope must be a function');
  // The factory runs inside the gate (after Host, method and media-type checks, before the body is
  // read), so it is keyed by the Request it receives rather than called here.
  const contexts = new WeakMap<Request, Context<E>>();
  const handle = createFetchHandler<Scope, HttpAuth | undefined>(mcp, {
    ...http,
    scope: scope && ((request: Request, facts: ScopeFacts) => scope(contexts.get(request)!, facts)),
  });
  return async (c) => {
    let request = c.req.raw;
    // A middleware or validator read the body already (c.req.json()...): Hono keeps a copy, so replay it.
    if (request.bodyUsed) request = new Request(request, { body: await c.req.arrayBuffer() });
    if (scope) contexts.set(request, c);
    return handle(request);
  };
}
