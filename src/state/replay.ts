/**
 * SSE resumability for 2025 streams (SEP-1699), in memory. A resumable stream's events are kept here
 * from its first one (each before the client can hold its id) until the TTL after the request
 * finished; when the POST response ends early (`ctx.closeStream()`, or the client went), the rest of
 * the request's events (notifications, server requests, the final reply) wait here for a `GET` with
 * `Last-Event-ID`. The store is per process (the in-memory ReplayStore); a shared one lets another
 * instance resume the stream.
 * Bounded on every side: events and characters per stream (oldest dropped first; an event larger
 * than the bound is never kept, see replay-frames.ts), characters per principal and in all, streams
 * per principal and in all (past any of them the same principal's streams go, finished ones first,
 * then its oldest events: never another principal's), and a TTL after the request finished.
 * No node: imports: the fetch handler uses it too.
 */
import type { MaybePromise } from '../protocol/mcp-types.js';

import { shrinkFrame } from './replay-frames.js';
import { BoundsLedger } from './ledger.js';
import { StreamRing } from './stream-ring.js';

/** How often the store looks for expired streams (they are also refused on sight: find()). */
const SWEEP_MS = 1_000;

/** Where a stream whose response ended keeps its events: frames numbered consecutively. */
export interface ReplayWriter {
  /**
   * A store shared over the network: settles once the stream is there for a resume on another
   * instance (bounded: a store that stops answering holds it back briefly, not for ever). The
   * response shows the client no event id before. Undefined for a store that has it at once.
   */
  readonly opened?: Promise<void>;
  push(frame: string): void;
  /** The request finished: no more events; the stream stays resumable for the TTL, or `keepMs` when shorter. */
  end(keepMs?: number): void;
}

/** What a `Last-Event-ID` found: the frames after it, whether the stream is over, and its live tail. */
export interface ReplayCursor {
  readonly missed: readonly string[];
  readonly done: boolean;
  /** Hands later frames to `reader` (and ends it with the stream); returns the function that lets go. */
  follow(reader: StreamReader): () => void;
}

/** The seam for 2025 SSE resumption (SEP-1699). */
export interface ReplayStore {
  /**
   * Keeps a resumable stream from its priming event on: every event is pushed before the client can
   * hold its id, so a resume on any instance sharing the store, at any moment, finds what it missed.
   */
  open(streamId: string, owner: string, nextSeq: number, principal?: string): ReplayWriter;
  /** The stream a `Last-Event-ID` names, if it is kept and belongs to `owner` (principal and session). */
  resume(lastEventId: string, owner: string): MaybePromise<ReplayCursor | undefined>;
}

export interface EventStoreLimits {
  /** Streams kept at once; opening one more drops the opener's own oldest, or keeps the new one not at all. */
  maxStreams: number;
  /** Streams kept at once for one named principal; past it, that principal's oldest is dropped. */
  maxStreamsPerPrincipal: number;
  /** Events kept per stream; older ones are dropped. */
  maxEvents: number;
  /** Characters kept per stream, counted like maxEvents; a larger event is never kept (a reply becomes a short error reply). */
  maxChars: number;
  /** Characters kept for one named principal over its streams; past it, its own oldest streams, then events, go. */
  maxCharsPerPrincipal: number;
  /** Characters kept in all; past it, the writing principal's own oldest streams, then events, go. */
  maxTotalChars: number;
  /** How long a finished stream stays resumable. */
  ttlMs: number;
}

export const DEFAULT_EVENT_STORE_LIMITS: EventStoreLimits = {
  maxStreams: 1000,
  maxStreamsPerPrincipal: 100,
  maxEvents: 1000,
  maxChars: 1024 * 1024,
  maxCharsPerPrincipal: 8 * 1024 * 1024,
  maxTotalChars: 64 * 1024 * 1024,
  ttlMs: 30_000,
};

/** Where a resumed stream's events go: a GET response. */
export interface StreamReader {
  write(text: string): void;
  end(): void;
}

/** Random bytes drawn 4 KiB at a time: one call into the CSPRNG per 256 ids, not per stream (it showed in the SSE profile). */
const RANDOM_POOL = new Uint8Array(4096);
let randomAt = RANDOM_POOL.length;
const HEX_DIGITS = new Uint8Array([...'0123456789abcdef'].map((digit) => digit.charCodeAt(0)));
/** The id's characters, made into one string at once (a string built digit by digit allocates one piece per digit). */
const ID_CHARS = new Uint8Array(32);
/** Decodes them (ASCII): 40% faster than String.fromCharCode.apply, which copies the 32 codes into an argument list first. */
const ID_DECODER = new TextDecoder();

/** A random, unguessable stream id (128 bits, hex): event ids are `<streamId>-<n>`, the priming event is n = 0. */
export function newStreamId(): string {
  if (randomAt === RANDOM_POOL.length) {
    crypto.getRandomValues(RANDOM_POOL);
    randomAt = 0;
  }
  for (let i = 0; i < 32; randomAt++) {
    const byte = RANDOM_POOL[randomAt]!;
    ID_CHARS[i++] = HEX_DIGITS[byte >> 4]!;
    ID_CHARS[i++] = HEX_DIGITS[byte & 15]!;
  }
  return ID_DECODER.decode(ID_CHARS);
}

/** The event id `<streamId>-<n>` split into its parts, or undefined when it is not one of ours. */
export function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const dash = eventId.lastIndexOf('-');
  const seq = eventId.slice(dash + 1);
  if (dash < 1 || dash > 64 || !/^\d{1,15}$/.test(seq)) return undefined;
  return { streamId: eventId.slice(0, dash), seq: Number(seq) };
}

/** The events of one stream after its POST response was closed, and the GET reading them, if any. */
export class StoredStream implements ReplayWriter {
  /** Its key in the store. */
  readonly id: string;
  /** Whose it is (principal and session): only the same owner may resume it. */
  readonly owner: string;
  /** The request finished: no more events will come. */
  done = false;
  /** Dropped from the store (limits): later events are discarded. */
  dropped = false;
  /** Its place in the store's ring (-1 when not kept). */
  slot = -1;
  expires = Infinity;
  readonly #limits: EventStoreLimits;
  /** Complete SSE frames; #frames[i] has event number #first + i. */
  #frames: string[] = [];
  #first: number;
  #chars = 0;
  #reader: StreamReader | undefined;

  /** The named principal it counts against ('' anonymous: only the total applies). */
  readonly principal: string;
  /** Told of every change in the characters kept (the store counts them per principal and in all). */
  readonly #resized: ((stream: StoredStream, delta: number) => void) | undefined;

  constructor(id: string, owner: string, nextSeq: number, limits: EventStoreLimits, principal = '', resized?: (stream: StoredStream, delta: number) => void) {
    this.id = id;
    this.owner = owner;
    this.principal = principal;
    this.#first = nextSeq;
    this.#limits = limits;
    this.#resized = resized;
  }

  /** Characters kept. */
  get chars(): number {
    return this.#chars;
  }

  /** Appends the next event (numbered consecutively) and hands it to the live reader. */
  push(frame: string): void {
    if (this.dropped) return;
    const kept = frame.length <= this.#limits.maxChars ? frame : shrinkFrame(frame, this.#limits.maxChars);
    this.#frames.push(kept);
    this.#chars += kept.length;
    this.#resized?.(this, kept.length);
    this.shed(this.#chars - this.#limits.maxChars);
    this.#reader?.write(frame);
  }

  /** Drops the oldest events until `chars` characters (and any events past maxEvents) are freed. */
  shed(chars: number): void {
    const frames = this.#frames;
    let freed = 0;
    while (frames.length > 0 && (freed < chars || frames.length > this.#limits.maxEvents)) {
      freed += frames.shift()!.length;
      this.#first++;
    }
    this.#chars -= freed;
    if (freed > 0) this.#resized?.(this, -freed);
  }

  /** The request finished: the reader (if any) ends, and the events stay resumable for the TTL (or `keepMs`, when shorter). */
  end(keepMs?: number): void {
    if (this.done) return;
    this.done = true;
    this.expires = Date.now() + Math.min(keepMs ?? Infinity, this.#limits.ttlMs);
    // Kept for the TTL with no more frames to come: an exact-size copy instead of an array grown for pushes.
    this.#frames = this.#frames.slice();
    this.#endReader();
  }

  /** The frames after event `seq` that are still kept. */
  after(seq: number): string[] {
    return this.#frames.slice(Math.max(0, seq + 1 - this.#first));
  }

  /** Makes `reader` the live reader (ending a previous one: the client reconnected). */
  attach(reader: StreamReader): void {
    if (this.#reader !== reader) this.#endReader();
    this.#reader = reader;
  }

  /** The reader went away (the client disconnected); the events stay for the next resume. */
  detach(reader: StreamReader): void {
    if (this.#reader === reader) this.#reader = undefined;
  }

  drop(): void {
    this.dropped = true;
    this.#frames.length = 0;
    if (this.#chars > 0) this.#resized?.(this, -this.#chars);
    this.#chars = 0;
    this.#endReader();
  }

  #endReader(): void {
    const reader = this.#reader;
    this.#reader = undefined;
    reader?.end();
  }
}

export class EventStore implements ReplayStore {
  #nextSweep = 0;
  readonly limits: EventStoreLimits;
  /** The kept streams in open order, and by id (see stream-ring.ts: no Map churn at the bound). */
  readonly #streams = new StreamRing<StoredStream>();
  /** Streams and their characters, per named principal and in all (anonymous streams count only there). */
  readonly #ledger = new BoundsLedger();
  readonly #resized = (stream: StoredStream, delta: number): void => this.#count(stream, delta);

  constructor(limits: Partial<EventStoreLimits> = {}) {
    this.limits = { ...DEFAULT_EVENT_STORE_LIMITS, ...limits };
  }

  get size(): number {
    return this.#streams.size;
  }

  /** Characters kept in all streams. */
  get chars(): number {
    return this.#ledger.total.size;
  }

  /**
   * Starts keeping a stream whose next event is number `nextSeq`. Past the principal's share, or past
   * maxStreams, its own oldest stream is dropped; with none to drop the new one is not kept (never
   * another principal's).
   */
  open(streamId: string, owner: string, nextSeq: number, principal = ''): StoredStream {
    this.#sweep();
    const previous = this.#streams.get(streamId);
    if (previous !== undefined) this.#forget(previous); // an id opened twice: the newer stream replaces it
    const stream = new StoredStream(streamId, owner, nextSeq, this.limits, principal, this.#resized);
    const full = (principal !== '' && this.#ledger.of(principal).count >= this.limits.maxStreamsPerPrincipal) || this.#streams.size >= this.limits.maxStreams;
    if (full && !this.#dropOldest(principal)) {
      stream.drop();
      return stream;
    }
    this.#streams.push(stream);
    this.#ledger.add(principal, 1, 0);
    return stream;
  }

  /**
   * Drops the principal's oldest finished stream, else its oldest one (other than `except`); false
   * when it has none. Finished streams go first: streams are kept from their first event, and a long
   * call must stay resumable.
   */
  #dropOldest(principal: string, except?: StoredStream): boolean {
    const streams = this.#streams;
    let oldest: StoredStream | undefined;
    for (let i = 0; i < streams.span; i++) {
      const stream = streams.at(i);
      if (stream === undefined || stream.principal !== principal || stream === except) continue;
      if (stream.done) {
        this.#forget(stream);
        return true;
      }
      oldest ??= stream;
    }
    if (oldest === undefined) return false;
    this.#forget(oldest);
    return true;
  }

  #forget(stream: StoredStream): void {
    this.#streams.remove(stream);
    stream.drop();
    this.#ledger.add(stream.principal, -1, 0);
  }

  #count(stream: StoredStream, delta: number): void {
    const principal = stream.principal;
    this.#ledger.add(principal, 0, delta);
    if (delta > 0 && !stream.dropped && this.#excess(principal) > 0) this.#fit(stream);
  }

  /** Characters over the principal's bound (a named one) or the total bound, whichever is more. */
  #excess(principal: string): number {
    const mine = principal === '' ? 0 : this.#ledger.of(principal).size - this.limits.maxCharsPerPrincipal;
    return Math.max(mine, this.#ledger.total.size - this.limits.maxTotalChars);
  }

  /** Past the principal's or the total bound: the writer's own oldest streams go, then its stream's oldest events. */
  #fit(stream: StoredStream): void {
    const principal = stream.principal;
    while (this.#excess(principal) > 0 && this.#dropOldest(principal, stream));
    const excess = this.#excess(principal);
    if (excess > 0) stream.shed(excess);
  }

  /** The stream a `Last-Event-ID` names, if it is kept and belongs to this owner (principal and session). */
  find(lastEventId: string, owner: string): { stream: StoredStream; seq: number } | undefined {
    this.#sweep();
    const parsed = parseEventId(lastEventId);
    const stream = parsed && this.#streams.get(parsed.streamId);
    if (stream === undefined || stream.owner !== owner || stream.expires <= Date.now()) return undefined;
    return { stream, seq: parsed!.seq };
  }

  resume(lastEventId: string, owner: string): ReplayCursor | undefined {
    const found = this.find(lastEventId, owner);
    if (found === undefined) return undefined;
    const { stream, seq } = found;
    return {
      missed: stream.after(seq),
      done: stream.done,
      follow: (reader) => {
        stream.attach(reader);
        return () => stream.detach(reader);
      },
    };
  }

  /**
   * Forgets the expired streams, at most once per SWEEP_MS: every resumable stream is kept from its
   * first event, so a walk over all of them on each open would cost every SSE response O(streams).
   * find() checks a stream's own expiry, so a late sweep never serves an expired stream.
   */
  #sweep(): void {
    const now = Date.now();
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + SWEEP_MS;
    const streams = this.#streams;
    for (let i = 0; i < streams.span; i++) {
      const stream = streams.at(i);
      if (stream !== undefined && stream.expires <= now) this.#forget(stream);
    }
  }
}
