/**
 * Reading one request body, the same for every HTTP entry: node:http pushes chunks from its stream,
 * the fetch entry from its reader. The rules live here once:
 * - at most `limit` bytes; a larger body (declared or seen) is read and dropped up to LINGER_BYTES /
 *   LINGER_MS so the 413 reaches a client still uploading (linger.ts), then the read stops;
 * - the bytes held count against the process-wide budget (body-budget.ts): past it, 503 at once;
 * - a deadline for the whole body (`bodyTimeoutMs`, one shared sweeper): a trickle is refused 408.
 * The outcome is handed over exactly once; the budget is given back then (the body is parsed at once).
 */
import type { Idle } from '../../limits/concurrency.js';
import { bodyBudget } from './body-budget.js';
import type { BodyRead, BodySink } from './exchange.js';
import { LINGER_BYTES, LINGER_MS } from './linger.js';
import type { Settings } from './options.js';

/** Where the chunks come from: told when no more are wanted (a method, so no closure per request). */
export interface BodySource {
  stopReading(): void;
}

export class BodyReader implements Idle {
  readonly #limit: number;
  readonly #settings: Settings;
  readonly #source: BodySource;
  #sink: BodySink | undefined;
  #chunks: Uint8Array[] = [];
  #size = 0;
  /** Over the limit: the rest is dropped until it ends or a bound is hit. */
  #lingering: ReturnType<typeof setTimeout> | undefined;
  #dropped = 0;
  // The body deadline's bookkeeping (see IdleSweeper).
  lastActive = 0;
  paused = 0;
  idlePrev: Idle | undefined = undefined;
  idleNext: Idle | undefined = undefined;

  /** `declared`: the Content-Length, if any (a declared body over the limit is dropped from the start). */
  constructor(limit: number, declared: number, settings: Settings, sink: BodySink, source: BodySource) {
    this.#limit = limit;
    this.#settings = settings;
    this.#sink = sink;
    this.#source = source;
    settings.bodyDeadline.watch(this);
    if (declared > limit) this.#linger();
  }

  /** Whether the outcome was handed over (the source may stop reading). */
  get settled(): boolean {
    return this.#sink === undefined;
  }

  chunk(bytes: Uint8Array): void {
    if (this.#sink === undefined) return;
    if (this.#lingering === undefined) {
      const tooLarge = this.#size + bytes.byteLength > this.#limit;
      if (!tooLarge && bodyBudget.reserve(bytes.byteLength, this.#settings.maxBufferedBytes)) {
        this.#size += bytes.byteLength;
        this.#chunks.push(bytes);
        return;
      }
      // Over the process-wide budget: refuse at once (503, `Connection: close`), reading nothing more.
      if (!tooLarge) return this.#stopWith('over-budget');
      this.#linger(); // over this request's limit: drop the rest, then answer 413
    }
    this.#dropped += bytes.byteLength;
    if (this.#dropped > LINGER_BYTES) this.#stopWith('too-large');
  }

  /** The body ended. */
  end(): void {
    this.#settle(this.#lingering === undefined ? this.#joined() : 'too-large');
  }

  /** The source broke or the client went away: unreadable, unless the rest was being dropped anyway. */
  fail(): void {
    this.#settle(this.#lingering === undefined ? undefined : 'too-large');
  }

  /** The body deadline passed: a client dripping its body would hold a slot. */
  expire(): void {
    this.#stopWith('too-slow');
  }

  /** Starts dropping the body (its bytes leave the budget); the answer waits for its end, at most LINGER_MS. */
  #linger(): void {
    bodyBudget.release(this.#size);
    this.#size = 0;
    this.#chunks = [];
    this.#lingering ??= setTimeout(() => this.#stopWith('too-large'), LINGER_MS);
  }

  #stopWith(body: BodyRead): void {
    this.#source.stopReading();
    this.#settle(body);
  }

  #joined(): Uint8Array {
    const chunks = this.#chunks;
    if (chunks.length === 1) return chunks[0]!;
    const all = new Uint8Array(this.#size);
    let offset = 0;
    for (const chunk of chunks) {
      all.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return all;
  }

  #settle(body: BodyRead): void {
    const sink = this.#sink;
    if (sink === undefined) return;
    this.#sink = undefined;
    clearTimeout(this.#lingering);
    this.#settings.bodyDeadline.unwatch(this);
    bodyBudget.release(this.#size);
    this.#size = 0;
    this.#chunks = [];
    sink.bodyRead(body);
  }
}
