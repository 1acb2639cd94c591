/**
 * The SSE answer to one POST request: opened by the first message the handler sends, ended by the
 * reply. A 2025 stream is resumable (SEP-1699): its first event is a priming event with an id and a
 * `retry:`, every later event has an id `<streamId>-<n>`, and `ctx.closeStream()` ends the response
 * early while the request keeps running; what follows waits in the EventStore for a resuming GET.
 * 2026 streams have none of this (that revision removed event ids and resumption).
 */
import { serializeMessage, type JsonObject, type JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { newStreamId, type StoredStream } from './event-store.js';
import { Cancellation, type CancelSignal } from '../../context/cancellation.js';
import type { Exchange, HeaderMap } from './exchange.js';
import type { Settings } from './options.js';

export const SSE_HEADERS: HeaderMap = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};
const KEEP_ALIVE = ': keepalive\n\n';

export function writeKeepAlive(ex: Exchange<unknown>): void {
  if (!ex.signal.aborted) ex.write(KEEP_ALIVE);
}

export class PostStream {
  /** The status line went out: this stream is the answer. */
  opened = false;
  /**
   * What dispatch watches for cancellation. On a resumable stream it follows the exchange's signal
   * only until `close()`: a response ended on purpose is no disconnect.
   */
  readonly signal: CancelSignal;
  readonly #ex: Exchange<unknown>;
  readonly #settings: Settings;
  readonly #resumable: boolean;
  readonly #session: string | undefined;
  #id = '';
  #seq = 0;
  #finished = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  #unlink: (() => void) | undefined;
  /** Set by close(): later events go here instead of to the response. */
  #stored: StoredStream | undefined;

  constructor(ex: Exchange<unknown>, settings: Settings, resumable: boolean, session: string | undefined) {
    this.#ex = ex;
    this.#settings = settings;
    this.#resumable = resumable;
    this.#session = session;
    if (!resumable) {
      this.signal = ex.signal;
      return;
    }
    const own = new Cancellation();
    const forward = (): void => own.abort(ex.signal.reason);
    if (ex.signal.aborted) forward();
    else ex.signal.addEventListener('abort', forward);
    this.#unlink = () => ex.signal.removeEventListener('abort', forward);
    this.signal = own;
  }

  /** A message from the handler; late ones (after the reply) and orphaned ones (client gone) are dropped. */
  send(message: JsonRpcMessage): void {
    if (this.#finished) return;
    const text = serializeMessage(message);
    if (text !== undefined) this.#event(text);
  }

  /** `ctx.closeStream()`: ends the response after what was sent (at least the priming event); the request goes on, its later events into the store. */
  close(): void {
    if (!this.#resumable || this.#finished || this.#stored !== undefined || this.#ex.signal.aborted) return;
    if (!this.opened) this.#ex.write(this.#open()); // so the client has an event id to resume from
    this.#stored = this.#settings.events.open(this.#id, this.#session, this.#seq + 1);
    this.#release();
    this.#ex.end();
  }

  /**
   * The request is over: the reply (if any) goes last, then the stream ends. Returns false when the
   * stream never opened, and the caller answers with plain JSON. Safe to call twice.
   */
  finish(reply: JsonObject | undefined): boolean {
    if (this.#finished) return this.opened;
    this.#finished = true;
    this.#release();
    if (!this.opened) return false;
    const text = reply === undefined ? undefined : serializeMessage(reply);
    if (text !== undefined) this.#event(text);
    if (this.#stored !== undefined) {
      this.#stored.end();
      return true;
    }
    const aborted = this.#ex.signal.aborted;
    this.#ex.end();
    // The SDK v1 client resumes any stream with an event id that ended without a *result* (an error
    // reply, or none after a cancellation). Such a stream is remembered, empty: its GET gets 204, not 404.
    if (this.#resumable && !aborted && (reply === undefined || !('result' in reply))) {
      this.#settings.events.open(this.#id, this.#session, this.#seq + 1).end();
    }
    return true;
  }

  #event(text: string): void {
    if (this.#stored !== undefined) return this.#stored.push(this.#frame(text));
    if (this.#ex.signal.aborted) return;
    const head = this.opened ? '' : this.#open();
    this.#ex.write(head + this.#frame(text));
  }

  #frame(text: string): string {
    return this.#resumable ? `id: ${this.#id}-${++this.#seq}\nevent: message\ndata: ${text}\n\n` : `event: message\ndata: ${text}\n\n`;
  }

  /** Starts the response; returns the priming event (2025), which the caller writes with what follows in one chunk. */
  #open(): string {
    this.opened = true;
    const ex = this.#ex;
    ex.openStream(SSE_HEADERS);
    this.#keepAlive = setInterval(writeKeepAlive, this.#settings.keepAliveMs, ex);
    if (!this.#resumable) return '';
    this.#id = newStreamId();
    return `id: ${this.#id}-0\nretry: ${this.#settings.sseRetryMs}\ndata:\n\n`; // an id, a retry, empty data
  }

  /** Stops what the open response needed: its keep-alives and the link to its disconnect signal. */
  #release(): void {
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
    this.#unlink?.();
    this.#unlink = undefined;
  }
}
