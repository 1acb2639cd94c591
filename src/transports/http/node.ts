/**
 * `minimcp/node`: the node:http adapter and `serve()`. It feeds IncomingMessage / ServerResponse to
 * the shared exchange logic directly (no Web Request/Response on this hot path), and its event
 * listeners are module-level functions that find their exchange through a symbol: no closures per request.
 */
import { intOption, type IntLimits } from '../../option-checks.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MiniMCP } from '../../server.js';
import { Cancellation } from '../../platform/cancellation.js';
import { BodyReader, type BodySource } from './body-reader.js';
import { serveOverride } from './serve-override.js';
import type { BodyRead, BodySink, Exchange, HeaderMap } from './exchange.js';
import { backlogExceeded, resolveSettings, type HttpOptions, type ScopeFacts, type Settings } from './options.js';
import type { HttpAuth } from './auth-gate.js';
import type { AuthInfo } from '../../protocol/auth-info.js';
import { worthDraining } from './linger.js';
import { serveExchange } from './serve-exchange.js';
import { listenOn } from './listen.js';
import { SSE_HEADERS } from './sse.js';
import type { ScopedOptions } from '../scoped-options.js';
import { CARD_SUFFIX, WELL_KNOWN, type ServerCard } from './card/server-card.js';

export type { ScopeFacts } from './options.js';

export interface NodeHandlerOptions<Scope, Auth extends HttpAuth | undefined = HttpAuth | undefined> extends HttpOptions {
  /** `oauthResourceServer()` from minimcp/auth (see HttpOptions); given here, the scope factory's `auth` is typed as present. */
  auth?: Auth;
  /**
   * Who is calling, from the request and the verified token (`auth`, with the `auth` option: the
   * factory runs after authentication). Throw an McpError with httpStatus 401 or 403 to refuse.
   */
  scope?: (request: IncomingMessage, facts: ScopeFacts<Auth>) => Scope | Promise<Scope>;
}

/** `next`, when given (Express/Connect), receives unexpected failures instead of the built-in 500 answer. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

const EXCHANGE = Symbol('minimcp.exchange');
interface Tagged {
  [EXCHANGE]?: NodeExchange<unknown>;
}

function onResponseClose(this: ServerResponse): void {
  (this as Tagged)[EXCHANGE]?.closed();
}
function onData(this: IncomingMessage, chunk: Buffer): void {
  (this as Tagged)[EXCHANGE]?.body?.chunk(chunk);
}
function onEnd(this: IncomingMessage): void {
  (this as Tagged)[EXCHANGE]?.body?.end();
}
function onRequestError(this: IncomingMessage): void {
  (this as Tagged)[EXCHANGE]?.body?.fail();
}

/** HTTP/1 streams add `Connection: keep-alive`; the usual header set gets it once, not per stream. */
const SSE_HEADERS_HTTP1: HeaderMap = { ...SSE_HEADERS, connection: 'keep-alive' };
const withKeepAlive = (headers: HeaderMap): HeaderMap => (headers === SSE_HEADERS ? SSE_HEADERS_HTTP1 : { ...headers, connection: 'keep-alive' });

class NodeExchange<Scope> implements Exchange<Scope>, BodySource {
  readonly method: string;
  /** A light signal: dispatch only needs a flag and a listener (an AbortController costs microseconds). */
  readonly signal = new Cancellation();
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #factory: NodeHandlerOptions<Scope>['scope'];
  readonly #next: ((error?: unknown) => void) | undefined;
  readonly #settings: Settings;
  /** The body being read (body-reader.ts), until it is handed over. */
  body: BodyReader | undefined;

  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    factory: NodeHandlerOptions<Scope>['scope'],
    next: ((error?: unknown) => void) | undefined,
    settings: Settings,
  ) {
    this.method = req.method ?? 'GET';
    this.#settings = settings;
    this.#req = req;
    this.#res = res;
    this.#factory = factory;
    this.#next = next;
    (res as Tagged)[EXCHANGE] = this as NodeExchange<unknown>;
    res.on('close', onResponseClose);
  }

  get(name: string): string | undefined {
    const headers = this.#req.headers;
    let value = headers[name];
    if (value === undefined) {
      const lower = name.toLowerCase(); // node lower-cases names; callers may not (Mcp-Param-Region)
      if (lower !== name) value = headers[lower];
    }
    return Array.isArray(value) ? value.join(', ') : value;
  }

  target(): string {
    const req = this.#req as IncomingMessage & { originalUrl?: string };
    return req.originalUrl ?? req.url ?? '/'; // Express strips its mount path from req.url
  }

  scope(auth: AuthInfo | undefined): Scope | Promise<Scope> | undefined {
    return this.#factory?.(this.#req, { auth });
  }

  readBody(limit: number, sink: BodySink): void {
    const req = this.#req;
    if (req.readableEnded) return sink.bodyRead(this.#alreadyRead(limit));
    const declared = Number(req.headers['content-length']);
    if (declared > limit && !worthDraining(declared, limit)) return sink.bodyRead('too-large');
    this.body = new BodyReader(limit, declared, this.#settings, sink, this);
    (req as Tagged)[EXCHANGE] = this as NodeExchange<unknown>;
    // on(), not once(): each once() wraps its listener in a new closure, and a request and its
    // response are used for one exchange only (their events fire once for it).
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onRequestError);
  }

  stopReading(): void {
    this.#req.removeListener('data', onData);
    this.#req.pause();
  }

  /** A framework body parser (express.json(), raw(), text()) consumed the stream first: use its result. */
  #alreadyRead(limit: number): BodyRead {
    const body = (this.#req as { body?: unknown }).body;
    if (body instanceof Uint8Array) return body.byteLength > limit ? 'too-large' : body;
    if (typeof body === 'string') return Buffer.byteLength(body) > limit ? 'too-large' : Buffer.from(body);
    return body === undefined ? new Uint8Array(0) : { parsed: body };
  }

  /** The response closed: finished normally, or the client went away, which cancels the handler at once. */
  closed(): void {
    if (!this.#res.writableFinished) this.signal.abort(new Error('The client closed the connection'));
    const body = this.body;
    if (body !== undefined && !body.settled) {
      this.stopReading(); // an upload cut short gives its bytes back
      body.fail();
    }
  }

  respond(status: number, headers: HeaderMap | undefined, body: string | undefined): void {
    const res = this.#res;
    if (res.headersSent || res.destroyed) return;
    // A known length avoids chunked encoding; a 204 must not carry one (RFC 9110 §8.6). All headers go
    // to writeHead in one object: an earlier setHeader() sends node down a slower merging path.
    const all: Record<string, string | number> = status === 204 || status === 304 ? {} : { 'content-length': body === undefined ? 0 : Buffer.byteLength(body) };
    if (headers !== undefined) for (const name in headers) all[name] = headers[name]!;
    res.writeHead(status, all);
    res.end(body);
  }

  openStream(headers: HeaderMap): void {
    const res = this.#res;
    if (res.headersSent || res.destroyed) return;
    // `Connection` is an HTTP/1 header; HTTP/2 forbids it.
    res.writeHead(200, this.#req.httpVersionMajor === 1 ? withKeepAlive(headers) : headers);
  }

  write(text: string): void {
    const res = this.#res;
    if (res.writableEnded || res.destroyed) return;
    // A client that stopped reading: close the stream (the 'close' event cancels the handler) rather than buffer without end.
    if (res.writableLength > this.#settings.maxStreamBacklogBytes) {
      this.#settings.onError(backlogExceeded(this.#settings));
      return void res.destroy();
    }
    res.write(text);
  }

  end(): void {
    if (!this.#res.writableEnded) this.#res.end();
  }

  fail(error: unknown): boolean {
    if (this.#next === undefined) return false;
    this.#next(error);
    return true;
  }
}

/** A node:http request listener for one MiniMCP instance; mount it on your MCP path. */
export function createNodeHandler<Scope, Auth extends HttpAuth | undefined = HttpAuth | undefined>(
  mcp: MiniMCP<Scope>,
  ...options: ScopedOptions<Scope, NodeHandlerOptions<NoInfer<Scope>, Auth>>
): NodeHandler;
export function createNodeHandler<Scope>(mcp: MiniMCP<Scope>, options: NodeHandlerOptions<Scope> = {}): NodeHandler {
  return nodeHandler(mcp, options, undefined).handler;
}

/** The handler and its settings; `path`, when the caller owns the routing (serve()), is the MCP endpoint's. */
function nodeHandler<Scope>(mcp: MiniMCP<Scope>, options: NodeHandlerOptions<Scope>, path: string | undefined): { handler: NodeHandler; settings: Settings } {
  const settings: Settings = resolveSettings(options, mcp.state.replay, { info: mcp.info, path });
  const factory = options.scope;
  if (factory !== undefined && typeof factory !== 'function') throw new TypeError('HTTP option scope must be a function');
  const handler: NodeHandler = (req, res, next) => {
    serveExchange(mcp, settings, new NodeExchange<Scope>(req, res, factory, next, settings));
  };
  return { handler, settings };
}

export interface ServeOptions<Scope, Auth extends HttpAuth | undefined = HttpAuth | undefined> extends NodeHandlerOptions<Scope, Auth> {
  /** Default 0: any free port (read it from `url`). */
  port?: number;
  /** Default 127.0.0.1: loopback only. */
  host?: string;
  /** The MCP endpoint; other paths get 404. Default /mcp. */
  path?: string;
  /**
   * Receiving a whole request (headers and body) may take this long; past it node answers 408 and
   * closes the connection. Responses (SSE streams) are not limited by it. Default 60 s.
   */
  requestTimeoutMs?: number;
  /** Receiving the request headers may take this long (slow-headers attacks). Default 15 s. */
  headersTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this long. Default 5 s. */
  keepAliveTimeoutMs?: number;
  /** Open connections at once (listen and SSE streams included); past it, new ones are dropped. Default 2048. */
  maxConnections?: number;
}

export interface RunningServer {
  /** The endpoint's URL, e.g. http://127.0.0.1:3000/mcp. */
  readonly url: string;
  readonly server: Server;
  /** Stops listening and closes open connections (their handlers are cancelled). */
  close(): Promise<void>;
}

/** The card beside this endpoint (not one beside another path) and the enabled well-known files. */
const isDiscovery = (card: ServerCard | undefined, target: string, cardPath: string): boolean =>
  card !== undefined && (target === cardPath || (WELL_KNOWN.has(target) && card.kindOf(target) !== undefined));

const NOT_FOUND = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Not Found' } });
const SERVE: IntLimits = { owner: 'serve() option' };

/** Serves one MiniMCP instance over HTTP on its own node:http server. */
export function serve<Scope, Auth extends HttpAuth | undefined = HttpAuth | undefined>(
  mcp: MiniMCP<Scope>,
  ...options: ScopedOptions<Scope, ServeOptions<NoInfer<Scope>, Auth>>
): Promise<RunningServer>;
export async function serve<Scope>(mcp: MiniMCP<Scope>, options: ServeOptions<Scope> = {}): Promise<RunningServer> {
  // Under `minimcp dev` the dev server owns the address (src/dev/child.ts).
  const override = serveOverride<MiniMCP<Scope>, ServeOptions<Scope>, RunningServer>();
  if (override) return override.serve(mcp, options);
  const { port = 0, host = '127.0.0.1', path = '/mcp', requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs, maxConnections, ...handlerOptions } = options;
  if (!path.startsWith('/')) throw new TypeError(`serve() option path must start with "/", got ${path}`);
  const requestTimeout = intOption(options, 'requestTimeoutMs', 60_000, SERVE);
  const headersTimeout = Math.min(intOption(options, 'headersTimeoutMs', 15_000, SERVE), requestTimeout); // node requires <=
  const { handler, settings } = nodeHandler(mcp as MiniMCP<unknown>, handlerOptions, path); // the public signature checked the scope already
  const metadataPaths = options.auth?.metadataPaths;
  const cardPath = path.replace(/\/+$/, '') + CARD_SUFFIX;
  // Node checks the two timeouts above on this interval (its default, 30 s, would let a trickle live 50% longer).
  const server = createServer({ requestTimeout, headersTimeout, connectionsCheckingInterval: 5_000 }, (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const target = query < 0 ? url : url.slice(0, query);
    // The handler answers the metadata, the card and the catalogs too; here it owns the origin.
    if (target === path || metadataPaths?.includes(target) || isDiscovery(settings.card, target, cardPath)) return handler(req, res);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(NOT_FOUND);
  });
  server.keepAliveTimeout = intOption(options, 'keepAliveTimeoutMs', 5_000, SERVE);
  server.maxConnections = intOption(options, 'maxConnections', 2_048, SERVE);
  await listenOn(server, port, host, 'pass another port (serve(mcp, { port }); 0 takes any free one)');
  const { port: actual } = server.address() as AddressInfo;
  // A wildcard bind is reached through localhost (which the default Host allow-list accepts).
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${actual}${path}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
