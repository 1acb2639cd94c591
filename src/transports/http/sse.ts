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
import type { Exchange, HeaderMap } from './exchange.js';
import type { Settings } from './options.js';
import { StreamCancelSignal, type DisconnectPolicy } from './stream-signal.js';
import { atTurnEnd, type TurnWaiter } from './turn-end.js';

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

/** The owner of an anonymous stream without a session: one string, not a new one kept with every such stream. */
const NOBODY = '0:\u0000';
/** Whose a kept stream is: the principal and the 2025 session; a resuming GET must present both. */
export const streamOwner = (principal: string, session: string | undefined): string =>
  principal === '' && session === undefined ? NOBODY : `${principal.length}:${principal}\u0000${session ?? ''}`;

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
 * Where a POST's SSE answer is. Every change of state goes through `#enter`:
 *
 *   quiet ─first message─▶ holding (this turn) | awaiting-store (a shared store has not acknowledged it)
 *   holding | awaiting-store ─turn over / store has it, or backlog past its bound─▶ streaming
 *   holding | awaiting-store | streaming ─closeStream(), or a 2025 session's client went─▶ kept
 *   holding | awaiting-store | streaming | kept ─finish()─▶ finished
 *   quiet ─finish()─▶ declined (the answer is plain JSON)
 */
type StreamState = 'quiet' | 'holding' | 'awaiting-store' | 'streaming' | 'kept' | 'finished' | 'declined';

/**
 * Built for every request that accepts SSE, so it stays cheap until the handler sends something:
 * no stream, no timer. Its cancel signal (`signal`) is a separate object that asks it what a
 * disconnect means.
 */
export class PostStream implements DisconnectPolicy, TurnWaiter {
  /** The request's cancel signal. */
  readonly signal: StreamCancelSignal;
  #state: StreamState = 'quiet';
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
  /**
   * What the stream wrote while holding, not sent yet; in kept or finished, a response ended while it
   * awaited the store, to go out whole once the store has the stream.
   */
  #held: string | undefined;
  /** A resumable stream's events in the replay store, each pushed before it is written (or, once kept, instead). */
  #journal: ReplayWriter | undefined;
  /** Streaming only: comments while idle, on a timer started when the hold is over. */
  #idle: IdleKeepAlive | undefined;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  /** Kept where the platform must be told to keep working (Workers' waitUntil). */
  #release: (() => void) | undefined;

  /** `resumableRevision`: the request's revision (decided once, at the HTTP gate) has resumable streams. */
  constructor(ex: Exchange<unknown>, settings: Settings, resumableRevision: boolean, session: string | undefined, owner: StreamOwner) {
    this.#ex = ex;
    this.#settings = settings;
    this.#resumableRevision = resumableRevision;
    this.#session = session;
    this.#owner = owner;
    this.signal = new StreamCancelSignal(ex.signal, this);
  }

  /** The status line went out (or is held): this stream is the answer. */
  get opened(): boolean {
    return this.#state !== 'quiet' && this.#state !== 'declined';
  }

  /**
   * 2025 streams carry event ids and can be resumed: a 2025 request with a session id or a
   * MCP-Protocol-Version header. One with neither (curl, `initialize`) gets a plain stream.
   * Decided on first need: most requests never stream.
   */
  get #isResumable(): boolean {
    return (this.#resumable ??= this.#resumableRevision && (this.#session !== undefined || this.#ex.get('mcp-protocol-version') !== undefined));
  }

  /** The state change and what entering a state starts or stops: the only place `#state` is set. */
  #enter(next: StreamState): void {
    this.#state = next;
    switch (next) {
      case 'holding':
      case 'awaiting-store':
        this.#held = '';
        break;
      case 'streaming': {
        const held = this.#held;
        this.#held = undefined;
        this.#idle = new IdleKeepAlive(this.#ex);
        this.#ex.openStream(SSE_HEADERS);
        if (held !== '' && held !== undefined) this.#ex.write(held);
        break;
      }
      case 'kept':
        // From now on events go only into the replay store (which has them all), and the exchange's signal no longer cancels.
        this.#release = this.#ex.holdOpen?.();
        this.signal.detach();
        this.#stopKeepAlive();
        break;
      default: // finished, declined
        this.#stopKeepAlive();
    }
  }

  /** The client went (the signal asks): a 2025 session's open stream is kept, the request goes on, its events wait for the resuming GET. */
  keepsOnDisconnect(): boolean {
    const state = this.#state;
    const open = state === 'holding' || state === 'awaiting-store' || state === 'streaming';
    if (!open || this.#session === undefined || !this.#isResumable) return false;
    this.#held = undefined; // the response is gone: nothing held goes out
    this.#enter('kept');
    return true;
  }

  /**
   * A message from the handler; late ones (after the reply) are dropped, and so are notifications for
   * a stream whose response ended once its principal spent its stored-event budget (stored-events.ts).
   */
  send(message: JsonRpcMessage): void {
    if (this.#state === 'finished' || this.#state === 'declined') return;
    const away = this.#state === 'kept' || (this.#journal !== undefined && this.#ex.signal.aborted);
    const budget = this.#settings.storedEvents;
    if (away && !('id' in message) && budget.spent(this.#owner.streamPrincipal)) return;
    const text = serializeMessage(message);
    if (text === undefined) return;
    if (away) budget.charge(this.#owner.streamPrincipal, text.length);
    this.#event(text);
  }

  /** `ctx.closeStream()`: ends the response after what was sent (at least the priming event); the request goes on, its later events into the store. */
  close(): void {
    const state = this.#state;
    if (state === 'kept' || state === 'finished' || state === 'declined' || this.#ex.signal.aborted || !this.#isResumable) return;
    if (state === 'quiet') this.#write(this.#open()); // so the client has an event id to resume from
    const from = this.#state;
    this.#enter('kept');
    this.#endResponse(from);
  }

  /**
   * The request is over: the reply (if any) goes last, then the stream ends. Returns false when the
   * stream never opened, and the caller answers with plain JSON. Safe to call twice.
   */
  finish(reply: JsonObject | undefined): boolean {
    if (this.#state === 'finished') return true;
    if (this.#state === 'declined') return false;
    if (this.#state === 'quiet') {
      this.#enter('declined');
      return false;
    }
    const text = reply === undefined ? undefined : serializeMessage(reply);
    if (text !== undefined) this.#event(text);
    const from = this.#state; // after the reply: past the backlog bound it started streaming
    // Kept, finished: a client whose connection went unnoticed resumes and gets the reply; one that
    // had it all and resumes anyway (the SDK v1 client does after an error reply, or none) gets 204.
    const stillOpen = from !== 'kept' && !this.#ex.signal.aborted;
    this.#journal?.end(stillOpen ? FINISHED_STREAM_GRACE_MS : undefined);
    this.#enter('finished');
    if (from === 'kept') this.#release?.();
    else this.#endResponse(from);
    return true;
  }

  /**
   * The response ends: one body with a length when it was all held (the handler did not wait), else
   * the stream's end; held while a shared store has not acknowledged the stream (see `turnOver`).
   */
  #endResponse(from: StreamState): void {
    const held = this.#held;
    if (held === undefined) return this.#ex.end();
    if (from === 'awaiting-store') return;
    this.#held = undefined;
    this.#ex.respond(200, SSE_HEADERS, held);
  }

  /**
   * Sends (or, while holding, holds) text. Past the backlog bound a held stream starts at once, even
   * before a shared store acknowledged it: memory first (a resume in that instant may get 404, and
   * the client starts a new request).
   */
  #write(text: string): void {
    const held = this.#held;
    if (held !== undefined) {
      if (held.length + text.length <= this.#settings.maxStreamBacklogBytes) return void (this.#held = held + text);
      this.#enter('streaming');
    }
    this.#ex.write(text);
    this.#idle?.sent();
  }

  #event(text: string): void {
    if (this.#state === 'kept') return this.#journal!.push(this.#frame(text));
    // Gone before this stream noticed (no listener yet): the store still gets it, for a resume.
    if (this.#ex.signal.aborted) return void this.#journal?.push(this.#frame(text));
    const head = this.#state === 'quiet' ? this.#open() : '';
    const frame = this.#frame(text);
    this.#journal?.push(frame); // in the store before the client can hold its id
    this.#write(head + frame);
  }

  #frame(text: string): string {
    if (!this.#isResumable) return `event: message\ndata: ${text}\n\n`;
    // Joined, so the frame is one flat string: a concatenation is a tree of its pieces in V8, and the
    // replay store keeps this frame for the stream's grace period, every piece surviving scavenges with it.
    return ['id: ', this.#id, '-', ++this.#seq, '\nevent: message\ndata: ', text, '\n\n'].join('');
  }

  /**
   * Starts the answer, held until this turn is over (and, with a shared store, until the store has
   * the stream); returns the priming event (2025), which the caller writes with what follows in one chunk.
   */
  #open(): string {
    let stored: Promise<void> | undefined;
    if (this.#isResumable) {
      this.#id = newStreamId();
      // Resumable from its priming event on, on every instance sharing the store.
      this.#journal = this.#settings.events.open(this.#id, this.#owner.streamOwner, 1, this.#owner.streamPrincipal);
      stored = this.#journal.opened;
    }
    if (stored === undefined) {
      this.#enter('holding');
      atTurnEnd(this);
    } else {
      // A client that drops the stream and resumes on another instance at once must find it there.
      this.#enter('awaiting-store');
      void stored.then(() => this.turnOver());
    }
    return this.#isResumable ? `id: ${this.#id}-0\nretry: ${this.#settings.sseRetryMs}\ndata:\n\n` : ''; // an id, a retry, empty data
  }

  /**
   * The hold is over (the turn that opened the stream ended, or the shared store has it): an answer
   * already over goes out whole; one still going (and still answering here) streams, with
   * keep-alive comments.
   */
  turnOver(): void {
    switch (this.#state) {
      case 'kept':
      case 'finished':
        if (this.#held !== undefined) this.#endResponse('holding'); // ended while it awaited the store
        return;
      case 'holding':
      case 'awaiting-store':
        if (this.#ex.signal.aborted) return;
        this.#enter('streaming');
        break;
      case 'streaming': // started early, past the backlog bound
        if (this.#ex.signal.aborted) return;
        break;
      default:
        return;
    }
    this.#keepAlive ??= setInterval(keepAliveTick, this.#settings.keepAliveMs, this.#idle!);
  }

  #stopKeepAlive(): void {
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}
