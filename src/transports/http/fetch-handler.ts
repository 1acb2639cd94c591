/**
 * The Web-standard adapter: `(Request) => Promise<Response>` for Bun, Deno, Cloudflare Workers and any
 * fetch-style server. No node: imports here, so it runs unchanged on those runtimes.
 */
import type { MiniMCP } from '../../server.js';
import type { BodyRead, BodySink, Exchange, HeaderMap } from './exchange.js';
import { resolveSettings, type HttpOptions, type Settings } from './options.js';
import { serveExchange } from './serve-exchange.js';

export interface FetchHandlerOptions<Scope> extends HttpOptions {
  /** Who is calling, from the request (e.g. a verified token). Throw an McpError with httpStatus 401 to refuse. */
  scope?: (request: Request) => Scope | Promise<Scope>;
}

export type FetchHandler<Scope> = (request: Request, init?: { scope?: Scope }) => Promise<Response>;

const encoder = new TextEncoder();

/** The authority of an absolute URL, for runtimes (and tests) whose Request has no Host header. */
function hostOfUrl(url: string): string | undefined {
  const start = url.indexOf('://');
  if (start < 0) return undefined;
  const end = url.indexOf('/', start + 3);
  return url.slice(start + 3, end < 0 ? undefined : end);
}

class FetchExchange<Scope> implements Exchange<Scope> {
  readonly method: string;
  readonly response: Promise<Response>;
  readonly #request: Request;
  readonly #init: { scope?: Scope } | undefined;
  readonly #factory: FetchHandlerOptions<Scope>['scope'];
  #abort: AbortController | undefined;
  #resolve!: (response: Response) => void;
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  #ended = false;

  constructor(request: Request, init: { scope?: Scope } | undefined, factory: FetchHandlerOptions<Scope>['scope']) {
    this.method = request.method;
    this.#request = request;
    this.#init = init;
    this.#factory = factory;
    this.response = new Promise((resolve) => (this.#resolve = resolve));
  }

  /**
   * Aborted when the request's own signal fires (the client disconnected) or the SSE body is
   * cancelled. Created on first use: notifications and client responses never need one.
   */
  get signal(): AbortSignal {
    if (this.#abort === undefined) {
      const abort = (this.#abort = new AbortController());
      const upstream = this.#request.signal;
      if (upstream.aborted) abort.abort(upstream.reason);
      else upstream.addEventListener('abort', () => abort.abort(upstream.reason), { once: true });
    }
    return this.#abort.signal;
  }

  get(name: string): string | undefined {
    const value = this.#request.headers.get(name);
    if (value !== null) return value;
    return name === 'host' ? hostOfUrl(this.#request.url) : undefined;
  }

  scope(): Scope | Promise<Scope> | undefined {
    if (this.#init !== undefined && 'scope' in this.#init) return this.#init.scope;
    return this.#factory?.(this.#request);
  }

  readBody(limit: number, sink: BodySink): void {
    this.#read(limit).then((body) => sink.bodyRead(body), () => sink.bodyRead(undefined)); // a locked or broken stream: unreadable
  }

  async #read(limit: number): Promise<BodyRead> {
    const declared = this.#request.headers.get('content-length');
    if (declared !== null && Number(declared) > limit) return 'too-large';
    const body = this.#request.body;
    if (body === null) return new Uint8Array(0);
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          reader.cancel().catch(() => {});
          return 'too-large';
        }
        chunks.push(value);
      }
    } catch {
      return undefined; // the client aborted the upload
    }
    if (chunks.length === 1) return chunks[0]!;
    const all = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      all.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return all;
  }

  respond(status: number, headers: HeaderMap | undefined, body: string | undefined): void {
    this.#resolve(new Response(body ?? null, { status, headers }));
  }

  openStream(headers: HeaderMap): void {
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#stream = controller;
      },
      cancel: (reason) => {
        this.#ended = true;
        if (!this.signal.aborted) this.#abort!.abort(reason);
      },
    });
    this.#resolve(new Response(stream, { status: 200, headers }));
  }

  write(text: string): void {
    if (!this.#ended) this.#stream?.enqueue(encoder.encode(text));
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#stream?.close();
  }
}

/** A fetch-style handler for one MiniMCP instance; mount it on your MCP path (POST). */
export function createFetchHandler<Scope>(mcp: MiniMCP<Scope>, options: FetchHandlerOptions<Scope> = {}): FetchHandler<Scope> {
  const settings: Settings = resolveSettings(options, mcp.state.replay);
  const factory = options.scope;
  if (factory !== undefined && typeof factory !== 'function') throw new TypeError('HTTP option scope must be a function');
  return (request, init) => {
    const exchange = new FetchExchange<Scope>(request, init, factory);
    serveExchange(mcp, settings, exchange);
    return exchange.response;
  };
}
