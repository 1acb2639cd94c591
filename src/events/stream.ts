/**
 * `events/stream` (push): one subscription per request, answered as a stream that carries only its
 * `notifications/events/*`: `active` first (again, with `truncated`, after a gap), each `event` with
 * the cursor after it, a `heartbeat` with the current cursor every `heartbeatMs`, `error` for what the
 * stream survives. It holds a place in the caller's stream quota, and everything it took (the log
 * watch, the timers, the place) is released when the client cancels or goes away.
 */
import type { Context } from '../context/context.js';
import { internalError, type McpError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { META } from '../protocol/versions.js';
import type { AuthInfo } from '../protocol/auth-info.js';
import type { CursorPosition } from './cursor.js';
import { maxAgeOf } from './params.js';
import type { SubscriptionRead } from './reading.js';
import type { EventService, Subscription } from './service.js';
import type { EventSettings } from './settings.js';

/** What a push stream needs of the server: the caller's principal and a place in the stream quota. */
export interface StreamHost<Scope> {
  principalOf(scope: Scope | undefined, auth?: AuthInfo): string;
  holdStream(principal: string): (() => void) | McpError;
}

const BATCH = 100;

const errorBody = (error: McpError): JsonObject => (error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data as JsonObject });

export async function streamEvents<Scope>(service: EventService<Scope>, settings: EventSettings, host: StreamHost<Scope>, params: JsonObject, ctx: Context<Scope>): Promise<JsonObject> {
  // Everything that can refuse the subscription does so before the stream opens: a plain error.
  const subscription = await service.resolve(params, 'push', ctx);
  const from = service.from(subscription.type, params.cursor);
  const release = host.holdStream(host.principalOf(ctx.scope, ctx.auth));
  if (typeof release !== 'function') throw release;
  const push = new PushStream(service, settings, subscription, ctx);
  try {
    await push.open(from, maxAgeOf(params));
    await push.untilClosed();
  } finally {
    push.close();
    release();
  }
  return { _meta: push.tag };
}

class PushStream<Scope> {
  readonly tag: JsonObject;
  #at: CursorPosition | null = null;
  #draining = false;
  #again = false;
  #closed = false;
  #stops: (() => void)[] = [];

  constructor(
    private readonly service: EventService<Scope>,
    private readonly settings: EventSettings,
    private readonly subscription: Subscription<Scope>,
    private readonly ctx: Context<Scope>,
  ) {
    this.tag = { [META.subscriptionId]: ctx.requestId };
  }

  #send(kind: string, params: JsonObject): void {
    if (!this.#closed) this.ctx.notify(`notifications/events/${kind}`, { ...params, _meta: this.tag });
  }

  #cursor(at: CursorPosition | null): string | null {
    return this.service.cursorOf(this.subscription.type, at);
  }

  /** `active`, then what the cursor replays; then the watch and the heartbeat. */
  async open(from: CursorPosition | null, maxAgeMs: number | undefined): Promise<void> {
    const { type } = this.subscription;
    if (from === null && type.source === undefined) {
      this.#at = await this.service.now(type);
      this.#send('active', { cursor: this.#cursor(this.#at), truncated: false });
    } else {
      const first = await this.service.read(this.subscription, from, maxAgeMs, BATCH, this.ctx);
      this.#send('active', { cursor: this.#cursor(first.truncated ? first.start : from), truncated: first.truncated });
      this.#deliver(first, false);
      if (first.more) void this.drain();
    }
    const heartbeat = setInterval(() => this.#beat(), this.settings.heartbeatMs);
    this.#stops.push(() => clearInterval(heartbeat));
    if (type.source !== undefined) {
      const reading = setInterval(() => void this.drain(), this.settings.sourceIntervalMs);
      this.#stops.push(() => clearInterval(reading));
    } else {
      this.#stops.push(this.service.watch(type, () => void this.drain()));
      void this.drain(); // what was appended between "now" and the watch
    }
  }

  #deliver(read: SubscriptionRead, announceGap: boolean): void {
    if (announceGap && read.truncated) this.#send('active', { cursor: this.#cursor(read.start), truncated: true });
    for (let i = 0; i < read.events.length; i++) this.#send('event', { ...read.events[i]!, cursor: this.#cursor(read.positions[i]!) });
    this.#at = read.next;
  }

  /** Reads everything after the stream's position; one read at a time, again if woken meanwhile. */
  async drain(): Promise<void> {
    if (this.#draining) {
      this.#again = true;
      return;
    }
    this.#draining = true;
    try {
      do {
        this.#again = false;
        const read = await this.service.read(this.subscription, this.#at, undefined, BATCH, this.ctx);
        if (this.#closed) return;
        this.#deliver(read, true);
        if (read.more) this.#again = true;
      } while (this.#again && !this.#closed);
    } catch (error) {
      this.#fail(error);
    } finally {
      this.#draining = false;
    }
  }

  /** A failed read is recoverable: the client hears of it, the stream stays, the next wake retries. */
  #fail(error: unknown): void {
    const shown = internalError('Reading events failed');
    this.#send('error', { error: { code: shown.code, message: shown.message } });
    this.service.report(error);
  }

  /**
   * The heartbeat, after asking again whether the caller may still see the type (a `visible` rule
   * may read state that changed): if not, `terminated` with Forbidden, and the stream ends.
   */
  #beat(): void {
    if (!this.service.mayUse(this.subscription.type, this.ctx)) {
      this.#send('terminated', { error: errorBody(this.service.errors.forbidden('Access to this event type was revoked')) });
      this.#end?.();
      return;
    }
    this.#send('heartbeat', { cursor: this.#cursor(this.#at) });
  }

  #end: (() => void) | undefined;

  /** Until the client cancels or goes away, or the server terminates the subscription. */
  untilClosed(): Promise<void> {
    const signal = this.ctx.signal;
    return new Promise<void>((resolve) => {
      this.#end = resolve;
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  close(): void {
    this.#closed = true;
    for (const stop of this.#stops) stop();
    this.#stops = [];
  }
}
