/**
 * The Web-standard adapter: `(Request) => Promise<Response>` for Bun, Deno, Cloudflare Workers and any
 * fetch-style server. No node: imports here, so it runs unchanged on those runtimes.
 */
import type { MiniMCP } from '../../server.js';
import type { BodySink, Exchange, HeaderMap } from './exchange.js';
import { BodyReader, type BodySource } from './body-reader.js';
import { backlogExceeded, resolveSettings, type HttpOptions, type ScopeFacts, type Settings } from './options.js';
import type { HttpAuth } from './auth-gate.js';
import type { AuthInfo } from '../../protocol/auth-info.js';
import { serveExchange } from './serve-exchange.js';
import { worthDraining } from './linger.js';
import { Cancellation } from '../../platform/cancellation.js';

export interface FetchHandlerOptions<Scope, Auth extends HttpAuth | undefined = HttpAuth | undefined> extends HttpOptions {
  /** `oauthResourceServer()` from minimcp/auth (see HttpOptions); given here, the scope factory's `auth` is typed as present. */
  auth?: Auth;
  /**
   * Who is calling, from the request and the verified token (`auth`, with the `auth` option: the
   * factory runs after authentication). Throw an McpError with httpStatus 401 or 403 to refuse.
   */
  scope?: (request: Request, facts: ScopeFacts<Auth>) => Scope | Promise<Scope>;
}

/** Per-request facts the host passes along with the Request. */
export interface FetchInit<Scope> {
  /** The caller's scope, fixed by the host (instead of the `scope` option's factory). */
  scope?: Scope;
  /**
   * The platform's way to keep work alive after the response (Cloudflare Workers:
   * `(promise) => ctx.waitUntil(promise)`). Without it Workers stop a request whose stream was closed
   * by `ctx.closeStream()` before its result reaches the store, and a resuming client never gets it.
   */
  waitUntil?: (promise: Promise<unknown>) => void;
}

export type FetchHandler<Scope> = (request: Request, init?: FetchInit<Scope>) => Promise<Response>;

const encoder = new TextEncoder();
const noop = (): void => {};

/** A Cancellation that starts following a Request's own signal when its first listener comes. */
class RequestSignal extends Cancellation {
  #following = false;
  constructor(private readonly request: Request) {
    super();
  }

  override addEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    super.addEventListener(type, listener);
    if (this.#following || listener === null) return;
    this.#following = true;
    const upstream = this.request.signal;
    if (upstream.aborted) this.abort(upstream.reason);
    else upstream.addEventListener('abort', () => this.abort(upstream.reason), { once: true });
  }
}

/** Feeds the body's chunks to its reader until it ends, breaks, or no more are wanted. */
async function pump(reader: ReadableStreamDefaultReader<Uint8Array>, body: BodyReader): Promise<void> {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return body.end();
      body.chunk(value);
      if (body.settled) return;
    }
  } catch {
    body.fail(); // the client aborted the upload (or the read was cancelled: then already settled)
  }
}

/** The authority of an absolute URL, for runtimes (and tests) whose Request has no Host header. */
function hostOfUrl(url: string): string | undefined {
  const start = url.indexOf('://');
  if (start < 0) return undefined;
  const end = url.indexOf('/', start + 3);
  return url.slice(start + 3, end < 0 ? undefined : end);
}

class FetchExchange<Scope> implements Exchange<Scope>, BodySource {
  readonly method: string;
  readonly response: Promise<Response>;
  readonly #request: Request;
  readonly #init: FetchInit<Scope> | undefined;
  readonly waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  readonly #factory: FetchHandlerOptions<Scope>['scope'];
  readonly #settings: Settings;
  #resolve!: (response: Response) => void;
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  #ended = false;
  /** The body's stream while it is read (body-reader.ts keeps the rules). */
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(request: Request, init: FetchInit<Scope> | undefined, factory: FetchHandlerOptions<Scope>['scope'], settings: Settings) {
    this.method = request.method;
    this.#settings = settings;
    this.#request = request;
    this.signal = new RequestSignal(request);
    this.#init = init;
    this.waitUntil = init?.waitUntil;
    this.#factory = factory;
    this.response = new Promise((resolve) => (this.#resolve = resolve));
  }

  /**
   * Aborted when the request's own signal fires (the client disconnected) or the SSE body is
   * cancelled. A light signal that follows the request's only once something listens: a request
   * answered at once (and notifications, client responses) never touches it. On Deno that saves
   * ~30 µs a request: reading it makes the signal, and Deno aborts it after every response.
   */
  readonly signal: Cancellation;

  get(name: string): string | undefined {
    const value = this.#request.headers.get(name);
    if (value !== null) return value;
    return name === 'host' ? hostOfUrl(this.#request.url) : undefined;
  }

  target(): string {
    const url = this.#request.url;
    const start = url.indexOf('://');
    const path = start < 0 ? -1 : url.indexOf('/', start + 3);
    return path < 0 ? '/' : url.slice(path);
  }

  scope(auth: AuthInfo | undefined): Scope | Promise<Scope> | undefined {
    if (this.#init !== undefined && 'scope' in this.#init) return this.#init.scope;
    return this.#factory?.(this.#request, { auth });
  }

  readBody(limit: number, sink: BodySink): void {
    const declared = Number(this.#request.headers.get('content-length'));
    if (declared > limit && !worthDraining(declared, limit)) return sink.bodyRead('too-large');
    const stream = this.#request.body;
    if (stream === null) return sink.bodyRead(new Uint8Array(0));
    let reader: ReadableStreamDefaultReader<Uint8Array>;
    try {
      reader = this.#reader = stream.getReader();
    } catch {
      return sink.bodyRead(undefined); // a locked stream: unreadable
    }
    const body = new BodyReader(limit, declared, this.#settings, sink, this);
    void pump(reader, body);
  }

  stopReading(): void {
    void this.#reader?.cancel().catch(() => {});
  }

  holdOpen(): () => void {
    const waitUntil = this.waitUntil;
    if (waitUntil === undefined) return noop;
    let release = noop;
    waitUntil(new Promise<void>((resolve) => (release = resolve)));
    return release;
  }

  respond(status: number, headers: HeaderMap | undefined, body: string | undefined): void {
    this.#resolve(new Response(body ?? null, { status, headers }));
  }

  openStream(headers: HeaderMap): void {
    // Counted in bytes with no high-water mark, so -desiredSize is what the client has not taken yet.
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#stream = controller;
      },
      cancel: (reason) => this.#cancel(reason),
    }, new ByteLengthQueuingStrategy({ highWaterMark: 0 }));
    this.#resolve(new Response(stream, { status: 200, headers }));
  }

  write(text: string): void {
    const stream = this.#stream;
    if (this.#ended || stream === undefined) return;
    // A client that stopped reading: close the stream and cancel the handler rather than buffer without end.
    if (-(stream.desiredSize ?? 0) > this.#settings.maxStreamBacklogBytes) {
      const error = backlogExceeded(this.#settings);
      this.#settings.onError(error);
      stream.error(error);
      return this.#cancel(error);
    }
    stream.enqueue(encoder.encode(text));
  }

  #cancel(reason: unknown): void {
    this.#ended = true;
    this.signal.abort(reason);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#stream?.close();
  }
}

/** A fetch-style handler for one MiniMCP instance; mount it on your MCP path (POST). */
export function createFetchHandler<Scope, Auth extends HttpAuth | undefined = HttpAuth | undefined>(mcp: MiniMCP<Scope>, options?: FetchHandlerOptions<Scope, Auth>): FetchHandler<Scope>;
export function createFetchHandler<Scope>(mcp: MiniMCP<Scope>, options: FetchHandlerOptions<Scope> = {}): FetchHandler<Scope> {
  const settings: Settings = resolveSettings(options, mcp.state.replay, { info: mcp.info });
  const factory = options.scope;
  if (factory !== undefined && typeof factory !== 'function') throw new TypeError('HTTP option scope must be a function');
  return (request, init) => {
    const exchange = new FetchExchange<Scope>(request, init, factory, settings);
    serveExchange(mcp, settings, exchange);
    return exchange.response;
  };
}
