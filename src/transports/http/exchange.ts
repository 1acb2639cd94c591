/**
 * The one contract between the runtime adapters (Web fetch, node:http) and the shared HTTP logic.
 * An adapter only moves bytes; everything protocol-shaped lives in serve-exchange.ts. It is written
 * as one object per request whose methods live on a prototype, so the hot path allocates little.
 */

import type { AuthInfo } from '../../protocol/auth-info.js';
import type { CancelSignal } from '../../platform/cancellation.js';

/** What the body reader produced: bytes, a value a framework already parsed, or a refusal. */
export type BodyRead =
  | Uint8Array
  /** A framework body parser (express.json()...) consumed the stream before us. */
  | { readonly parsed: unknown }
  /** Larger than the limit: detected from Content-Length or while reading, never after buffering it all. */
  | 'too-large'
  /** Buffering it would take the process past its total for request bodies (see body-budget.ts). */
  | 'over-budget'
  /** Not received within the body-read deadline (a slow trickle). */
  | 'too-slow'
  /** The client went away while sending. */
  | undefined;

/** Receives the body an exchange read. */
export interface BodySink {
  bodyRead(body: BodyRead): void;
}

export type HeaderMap = Readonly<Record<string, string>>;

export interface Exchange<Scope> {
  /** The HTTP method, upper case. */
  readonly method: string;
  /** Aborted the moment the client disconnects; dispatch cancels the handler with it. */
  readonly signal: CancelSignal;
  /**
   * A request header by lower-case name. Named `get` so the exchange itself is the core's
   * HeaderLookup and no wrapper object is built per request.
   */
  get(name: string): string | undefined;
  /** The request target: path and query as received (the mount point's full path behind Express). */
  target(): string;
  /** The caller's scope (fixed by the host, or from the scope factory, which gets the verified token); may throw. */
  scope(auth: AuthInfo | undefined): Scope | Promise<Scope> | undefined;
  /**
   * Reads the whole body, refusing it as soon as it passes `limit` bytes, and hands it to
   * `sink.bodyRead` once (a callback, not a promise: see serveExchange).
   */
  readBody(limit: number, sink: BodySink): void;
  /** A complete answer. `body` undefined means an empty body. */
  respond(status: number, headers: HeaderMap | undefined, body: string | undefined): void;
  /** Starts a 200 streamed answer (SSE); then `write` chunks and `end` once. */
  openStream(headers: HeaderMap): void;
  write(text: string): void;
  end(): void;
  /**
   * Optional: keeps the runtime working on this request after its response ended (a stream closed by
   * `ctx.closeStream()`, finished later into the event store); call the returned function when it is
   * over. Workers need it (`waitUntil`); on a long-lived process there is nothing to do.
   */
  holdOpen?(): () => void;
  /** The platform's waitUntil, for `ctx.waitUntil()`; undefined where the process lives on anyway. */
  readonly waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
  /** Optional: hands an unexpected failure to the host framework (Express `next(error)`); true if it took it. */
  fail?(error: unknown): boolean;
}

