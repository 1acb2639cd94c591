/**
 * `minimcp/fastify`: MiniMCP as a Fastify plugin. Fastify is only a type here; the route hands the
 * raw node:http request and response to the node handler.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { MiniMCP } from '../server.js';
import { createNodeHandler } from '../transports/http/node.js';
import type { HttpOptions, ScopeFacts } from '../transports/http/options.js';
import type { HttpAuth } from '../transports/http/auth-gate.js';
import type { ScopedOptions } from '../transports/scoped-options.js';
import { discoveryPaths } from '../transports/http/card/paths.js';

export interface FastifyOptions<Scope, Auth extends HttpAuth | undefined = HttpAuth | undefined> extends HttpOptions {
  /** `oauthResourceServer()` from minimcp/auth (see HttpOptions); given here, the scope factory's `auth` is typed as present. */
  auth?: Auth;
  /** The endpoint, under the prefix the plugin is registered with. Default /mcp. */
  path?: string;
  /**
   * Who is calling, from the Fastify request and the verified token (`auth`, with the `auth` option:
   * the factory runs after authentication). Throw an McpError with httpStatus 401 or 403 to refuse.
   */
  scope?: (request: FastifyRequest, facts: ScopeFacts<Auth>) => Scope | Promise<Scope>;
}

/**
 * A plugin that routes POST, GET and DELETE on `path` to MiniMCP (GET and DELETE get the protocol's 405).
 * Inside the plugin's own context, Fastify's body parsers are replaced by a pass-through, so MiniMCP's
 * gate reads the body: its 415, 413 (`maxBodyBytes`, not Fastify's `bodyLimit`) and 400 -32700 answers
 * apply, and the scope factory runs before the body is read.
 *
 * ```ts
 * await app.register(mcpFastify(mcp, { scope: (request) => userOf(request.headers.authorization) }));
 * ```
 */
export function mcpFastify<Scope, Auth extends HttpAuth | undefined = HttpAuth | undefined>(
  mcp: MiniMCP<Scope>,
  ...options: ScopedOptions<Scope, FastifyOptions<NoInfer<Scope>, Auth>>
): FastifyPluginAsync;
export function mcpFastify<Scope>(mcp: MiniMCP<Scope>, options: FastifyOptions<Scope> = {}): FastifyPluginAsync {
  const { path = '/mcp', scope, ...http } = options;
  if (scope !== undefined && typeof scope !== 'function') throw new TypeError('mcpFastify option scope must be a function');
  const requests = new WeakMap<IncomingMessage, FastifyRequest>();
  const handle = createNodeHandler(mcp as MiniMCP<unknown>, { // the public signature checked the scope already
    ...http,
    scope: scope && ((raw: IncomingMessage, facts: ScopeFacts) => scope(requests.get(raw)!, facts)),
  });
  return async (fastify) => {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // The Protected Resource Metadata (with the `auth` option); the node handler answers it.
    const answer = (request: FastifyRequest, reply: FastifyReply) => (reply.hijack(), handle(request.raw, reply.raw));
    for (const url of http.auth?.metadataPaths ?? []) fastify.route({ method: ['GET', 'OPTIONS'], url, handler: answer });
    // The server card and the catalogs (the `card` option): every method, so a POST gets the handler's 405.
    for (const url of discoveryPaths(path, http.card)) fastify.route({ method: ['GET', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'], url, handler: answer });
    fastify.route({
      method: ['POST', 'GET', 'DELETE'],
      url: path,
      handler(request, reply) {
        const raw: IncomingMessage & { body?: unknown } = request.raw;
        // A hook consumed the stream and left a parsed body: the node handler takes it from raw.body.
        if (request.body !== undefined && raw.readableEnded && raw.body === undefined) raw.body = request.body;
        if (scope) requests.set(raw, request);
        reply.hijack();
        handle(raw, reply.raw);
      },
    });
  };
}
