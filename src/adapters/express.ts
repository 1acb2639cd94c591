/**
 * `minimcp/express`: MiniMCP as an Express 5 request handler. Express is only a type here; the work
 * is the node:http handler's, which also reads a body that `express.json()` (or raw()/text()) parsed first.
 */
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { MiniMCP } from '../server.js';
import { createNodeHandler } from '../transports/http/node.js';
import type { HttpOptions, ScopeFacts } from '../transports/http/options.js';
import type { HttpAuth } from '../transports/http/auth-gate.js';
import type { ScopedOptions } from '../transports/scoped-options.js';

export interface ExpressOptions<Scope, Auth extends HttpAuth | undefined = HttpAuth | undefined> extends HttpOptions {
  /** `oauthResourceServer()` from minimcp/auth (see HttpOptions); given here, the scope factory's `auth` is typed as present. */
  auth?: Auth;
  /**
   * Who is calling, from the Express request and the verified token (`auth`, with the `auth` option:
   * the factory runs after authentication). Throw an McpError with httpStatus 401 or 403 to refuse.
   */
  scope?: (req: Request, facts: ScopeFacts<Auth>) => Scope | Promise<Scope>;
}

/**
 * A request handler for every method of the MCP endpoint: mount it with `app.all('/mcp', ...)` so GET
 * and DELETE get the protocol's 405. Unexpected failures go to `next(error)`.
 *
 * ```ts
 * app.all('/mcp', mcpExpress(mcp, { scope: (req) => userOf(req.get('authorization')) }));
 * ```
 */
export function mcpExpress<Scope, Auth extends HttpAuth | undefined = HttpAuth | undefined>(
  mcp: MiniMCP<Scope>,
  ...options: ScopedOptions<Scope, ExpressOptions<NoInfer<Scope>, Auth>>
): RequestHandler;
export function mcpExpress<Scope>(mcp: MiniMCP<Scope>, options: ExpressOptions<Scope> = {}): RequestHandler {
  const { scope, ...http } = options;
  if (scope !== undefined && typeof scope !== 'function') throw new TypeError('mcpExpress option scope must be a function');
  const handle = createNodeHandler(mcp as MiniMCP<unknown>, { // the public signature checked the scope already
    ...http,
    // Express hands the same object to its middleware: an IncomingMessage extended into its Request.
    scope: scope && ((req: IncomingMessage, facts: ScopeFacts) => scope(req as Request, facts)),
  });
  return (req, res, next) => handle(req, res, next);
}
