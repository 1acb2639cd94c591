/**
 * The SSE answer to one POST request: opened by the first message the handler sends, ended by the
 * reply. A 2025 stream is resumable (SEP-1699): its first event is a priming event with an id and a
 * `retry:`, every later event has an id `<streamId>-<n>`, and `ctx.closeStream()` ends the response
 * early while the request keeps running; what follows waits in the replay store for a resuming GET.
 * Every event goes into the replay store *before* it is written (with a store shared over the
 * network, the first bytes wait until it acknowledged the stream): a client that drops the response
 * and resumes at once on another instance, before this one has seen it go (or after the handler
 * finished on a connection already gone), finds what it missed and follows the rest.
 * 2026 streams have none of this (that revision removed event ids and resumption).
 */
import { serializeMessage, type JsonObject, type JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { newStreamId, type ReplayWriter } from '../../state/replay.js';
import { callListener, type CancelSignal } from '../../request/cancellation.js';
import type { Exchange, HeaderMap } from './exchange.js';
import type { Settings } from './options.js';

export const SSE_HEADERS: HeaderMap = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};
const KEEP_ALIVE = ': keepalive\n\n';
/**
 * How long a stream that finished on a response still open stays resumable: its client most likely
 * read it all, but one that went before the server noticed reconnects within its retry delay. Short,
 * since every such stream is kept (a stream the client left, or closeStream() ended, keeps the TTL).
 */
const FINISHED_STREAM_GRACE_MS = 10_000;

/** Whose a kept stream is: the principal and the 2025 session; a resuming GET must present both. */
export const streamOwner = (principal: string, session: string | undefined): string => `${principal.length}:${principal}\u0000${session ?? ''}`;

/** Whose a kept stream is: the owner key (principal and session) and the principal its quota counts against. */
export interface StreamOwner {
  readonly streamOwner: string;
  readonly streamPrincipal: string;
}

/**
 * Keep-alive comments for an idle stream only: `sent()` after each event, `tick()` every keepAliveMs.
 * A busy stream needs none to stay open through proxies (the gap between writes stays under two
 * ticks), and a fan-out to many streams is not joined by a burst of comments to each of them.
 */
export class IdleKeepAlive {
  #busy = false;
  constructor(private readonly ex: Exchange<unknown>) {}

  sent(): void {
    this.#busy = true;
  }

  tick(): void {
    if (this.#busy) this.#busy = false;
    else if (!this.ex.signal.aborted) this.ex.write(KEEP_ALIVE);
  }
}

/** The keep-alive tick of a stream (a static function: no closure per stream). */
const keepAliveTick = (keepAlive: IdleKeepAlive): void => keepAlive.tick();

/**
 * Streams opened in this turn of the event loop. What they write is held until the turn is over:
 * most answers (progress, then the result) are over by then, and go out as one body with a length
 * (`respond`): one write, no chunked framing, no ReadableStream, no keep-alive timer. Those still
 * going then start streaming, what was held first.
 */
let opening: PostStream[] = [];
// Workers and browsers-like hosts have no setImmediate (this module serves the fetch handler too).
const afterThisTurn: (run: () => void) => void = typeof setImmediate === 'function' ? setImmediate : (run) => setTimeout(run, 0);
function firstTurnsOver(): void {
  const streams = opening;
  opening = [];
  for (const stream of streams) stream.firstTurnOver();
}

type Listener = EventListenerOrEventListenerObject;

/**
 * Built for every request that accepts SSE, so it stays cheap until the handler sends something:
 * no stream, no timer, and it is its own cancellation signal.
 */
export class PostStream implements CancelSignal, EventListenerObject {
  /** The status line went out: this stream is the answer. */
  opened = false;
  readonly #ex: Exchange<unknown>;
  readonly #settings: Settings;
  /** The request's revision lets its stream be resumed (2025, SEP-1699). */
  readonly #resumableRevision: boolean;
  readonly #session: string | undefined;
  /** Names the stream's owner when it is kept (read lazily: most streams never are). */
  readonly #owner: StreamOwner;
  #resumable: boolean | undefined;
  #id = '';
  #seq = 0;
  #finished = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  /** Set when the stream starts streaming (an answer sent whole never needs it): comments only while it is idle. */
  #idle: IdleKeepAlive | undefined;
  /** Listeners dispatch put on this signal; they live on the exchange's signal until `close()` detaches them. */
  #listeners: Listener[] | undefined;
  #detached = false;
  /** A resumable stream's events in the replay store, each pushed before it is written. */
  #journal: ReplayWriter | undefined;
  /** Set when the response ended early (close(), or a 2025 session's client went): events go only to the journal. */
  #stored: ReplayWriter | undefined;
  /** Set when the stream is kept where the platform must be told to keep working (Workers' waitUntil). */
  #release: (() => void) | undefined;
  /** What the stream wrote in the turn that opened it (or before a shared store had it), not sent yet (see `opening`). */
  #held: string | undefined;
  /** A shared replay store has not acknowledged the stream yet: no event id may reach the client. */
  #awaitingStore = false;
  /** The response ended while it waited for the store: it goes out whole once the store has the stream. */
  #endWhenStored = false;

  /** `resumableRevision`: the request's revision (decided once, at the HTTP gate) has resumable streams. */
  constructor(ex: Exchange<unknown>, settings: Settings, resumableRevision: boolean, session: string | undefined, owner: StreamOwner) {
    this.#ex = ex;
    this.#settings = settings;
    this.#resumableRevision = resumableRevision;
    this.#session = session;
    this.#owner = owner;
  }

  /**
   * 2025 streams carry event ids and can be resumed: a 2025 request with a session id or a
   * MCP-Protocol-Version header. One with neither (curl, `initialize`) gets a plain stream.
   * Decided on first need: most requests never stream.
   */
  get #isResumable(): boolean {
    return (this.#resumable ??= this.#resumableRevision && (this.#session !== undefined || this.#ex.get('mcp-protocol-version') !== undefined));
  }

  // The CancelSignal dispatch watches: the exchange's disconnect signal, except that a resumable
  // stream ended on purpose by close() is no disconnect, and neither is a 2025 session's resumable
  // stream whose client went away (the 2025 transport: a disconnect SHOULD NOT be read as a cancel;
  // the client resumes with Last-Event-ID or sends notifications/cancelled).
  get aborted(): boolean {
    return !this.#detached && this.#ex.signal.aborted;
  }

  get reason(): unknown {
    return this.#detached ? undefined : this.#ex.signal.reason;
  }

  addEventListener(_type: string, listener: Listener | null): void {
    if (this.#detached || listener === null) return;
    const first = this.#listeners === undefined;
    (this.#listeners ??= []).push(listener);
    if (first) this.#ex.signal.addEventListener('abort', this);
  }

  removeEventListener(_type: string, listener: Listener | null): void {
    if (listener === null) return;
    const list = this.#listeners;
    const i = list ? list.indexOf(listener) : -1;
    if (i >= 0) list!.splice(i, 1);
  }

  /** The exchange's signal fired: the client disconnected (or the server shuts down). */
  handleEvent(event: Event): void {
    if (this.#detached) return;
    if (this.opened && !this.#finished && this.#session !== undefined && this.#isResumable) {
      this.#keep(); // the request goes on; its events wait for the resuming GET
      return;
    }
    for (const listener of this.#listeners ?? []) callListener(listener, this, event);
  }

  /**
   * A message from the handler; late ones (after the reply) are dropped, and so are notifications for
   * a stream whose response ended once its principal spent its stored-event budget (stored-events.ts).
   */
  send(message: JsonRpcMessage): void {
    if (this.#finished) return;
    const away = this.#stored !== undefined || (this.#journal !== undefined && this.#ex.signal.aborted);
    const budget = this.#settings.storedEvents;
    if (away && !('id' in message) && budget.spent(this.#owner.streamPrincipal)) return;
    const text = serializeMessage(message);
    if (text === undefined) return;
    if (away) budget.charge(this.#owner.streamPrincipal, text.length);
    this.#event(text);
  }

  /** `ctx.closeStream()`: ends the response after what was sent (at least the priming event); the request goes on, its later events into the store. */
  close(): void {
    if (this.#finished || this.#stored !== undefined || this.#ex.signal.aborted || !this.#isResumable) return;
    if (!this.opened) this.#write(this.#open()); // so the client has an event id to resume from
    this.#keep();
    this.#endResponse();
  }

  /** From now on events go only into the replay store (which has them all), and the exchange's signal no longer cancels. */
  #keep(): void {
    this.#stored = this.#journal;
    this.#release = this.#ex.holdOpen?.();
    this.#detach();
    this.#stopKeepAlive();
  }

  /**
   * The request is over: the reply (if any) goes last, then the stream ends. Returns false when the
   * stream never opened, and the caller answers with plain JSON. Safe to call twice.
   */
  finish(reply: JsonObject | undefined): boolean {
    if (this.#finished) return this.opened;
    this.#finished = true;
    this.#stopKeepAlive();
    if (!this.opened) return false;
    const text = reply === undefined ? undefined : serializeMessage(reply);
    if (text !== undefined) this.#event(text);
    // Kept, finished: a client whose connection went unnoticed resumes and gets the reply; one that
    // had it all and resumes anyway (the SDK v1 client does after an error reply, or none) gets 204.
    const stillOpen = this.#stored === undefined && !this.#ex.signal.aborted;
    this.#journal?.end(stillOpen ? FINISHED_STREAM_GRACE_MS : undefined);
    if (this.#stored !== undefined) this.#release?.();
    else this.#endResponse();
    return true;
  }

  /** The response ends: one body with a length when it was all held (the handler did not wait), else the stream's end. */
  #endResponse(): void {
    const held = this.#held;
    if (held === undefined) return this.#ex.end();
    if (this.#awaitingStore) return void (this.#endWhenStored = true);
    this.#held = undefined;
    this.#ex.respond(200, SSE_HEADERS, held);
  }

  /**
   * Sends (or, in the turn that opened the stream, holds) text. Past the backlog bound a held stream
   * starts at once, even before a shared store acknowledged it: memory first (a resume in that
   * instant may get 404, and the client starts a new request).
   */
  #write(text: string): void {
    const held = this.#held;
    if (held !== undefined) {
      if (held.length + text.length <= this.#settings.maxStreamBacklogBytes) return void (this.#held = held + text);
      this.#startStream();
    }
    this.#ex.write(text);
    this.#idle?.sent();
  }

  /** The held stream starts: the status line, then what was held. */
  #startStream(): void {
    const held = this.#held;
    this.#held = undefined;
    this.#idle = new IdleKeepAlive(this.#ex);
    this.#ex.openStream(SSE_HEADERS);
    if (held !== '' && held !== undefined) this.#ex.write(held);
  }

  #event(text: string): void {
    if (this.#stored !== undefined) return this.#stored.push(this.#frame(text));
    // Gone before this stream noticed (no listener yet): the store still gets it, for a resume.
    if (this.#ex.signal.aborted) return void this.#journal?.push(this.#frame(text));
    const head = this.opened ? '' : this.#open();
    const frame = this.#frame(text);
    this.#journal?.push(frame); // in the store before the client can hold its id
    this.#write(head + frame);
  }

  #frame(text: string): string {
    return this.#isResumable ? `id: ${this.#id}-${++this.#seq}\nevent: message\ndata: ${text}\n\n` : `event: message\ndata: ${text}\n\n`;
  }

  /**
   * Starts the answer, held until this turn is over (and, with a shared store, until the store has
   * the stream); returns the priming event (2025), which the caller writes with what follows in one chunk.
   */
  #open(): string {
    this.opened = true;
    this.#held = '';
    let stored: Promise<void> | undefined;
    if (this.#isResumable) {
      this.#id = newStreamId();
      // Resumable from its priming event on, on every instance sharing the store.
      this.#journal = this.#settings.events.open(this.#id, this.#owner.streamOwner, 1, this.#owner.streamPrincipal);
      stored = this.#journal.opened;
    }
    if (stored === undefined) {
      if (opening.push(this) === 1) afterThisTurn(firstTurnsOver);
    } else {
      // A client that drops the stream and resumes on another instance at once must find it there.
      this.#awaitingStore = true;
      void stored.then(() => this.firstTurnOver());
    }
    return this.#isResumable ? `id: ${this.#id}-0\nretry: ${this.#settings.sseRetryMs}\ndata:\n\n` : ''; // an id, a retry, empty data
  }

  /**
   * The hold is over (the turn that opened the stream ended, or the shared store has it): an answer
   * already over goes out whole; one still going (and still answering here) starts streaming, with
   * keep-alive comments.
   */
  firstTurnOver(): void {
    this.#awaitingStore = false;
    if (this.#endWhenStored) return this.#endResponse();
    if (this.#finished || this.#stored !== undefined || this.#ex.signal.aborted) return;
    if (this.#held !== undefined) this.#startStream();
    const idle = this.#idle; // set by #startStream, now or earlier in the turn (past the backlog bound)
    if (idle !== undefined) this.#keepAlive ??= setInterval(keepAliveTick, this.#settings.keepAliveMs, idle);
  }

  #stopKeepAlive(): void {
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }

  #detach(): void {
    this.#detached = true;
    this.#listeners = undefined;
    this.#ex.signal.removeEventListener('abort', this);
  }
}
