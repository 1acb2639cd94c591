/**
 * The life of one running request: why it stopped early (cancelled, timed out, input needed), its
 * idle clock, and its AbortSignal. The signal is created only when someone reads it: most handlers
 * never do, and an AbortController costs more than the rest of a no-op request on Node 20.
 */
import { CancelledError } from './in-flight.js';

export type Interrupt = 'timeout' | 'aborted' | 'input';

export class Execution {
  /** When the handler last showed a sign of life (progress, a notification, resetTimeout); set when its idle clock starts. */
  lastActive = 0;
  /** > 0 while the handler waits on the client (a person may be answering): the idle clock stops. */
  paused = 0;
  /** Links in the idle sweeper's list (see IdleSweeper). */
  idlePrev: Execution | undefined = undefined;
  idleNext: Execution | undefined = undefined;
  aborted = false;
  reason: unknown;
  /** Why it stopped first; undefined while it runs. */
  interrupt: Interrupt | undefined;
  #controller: AbortController | undefined;
  #onInterrupt: ((why: Interrupt) => void) | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** True when the client cancelled: the request then gets no answer at all. */
  get cancelledByClient(): boolean {
    return this.reason instanceof CancelledError;
  }

  touch(): void {
    this.lastActive = Date.now();
  }

  pause(): void {
    this.paused++;
  }

  resume(): void {
    if (--this.paused === 0) this.lastActive = Date.now();
  }

  /**
   * Calls `listener` once with the first reason the request must stop waiting for its handler. A
   * callback, not a promise: only handlers that return a promise need it, and a promise per request
   * is what AsyncLocalStorage makes expensive. If the request already stopped, the call comes in a
   * microtask, after any reaction queued before it (so a handler that already settled wins).
   */
  onInterrupt(listener: (why: Interrupt) => void): void {
    const why = this.interrupt;
    if (why === undefined) this.#onInterrupt = listener;
    else queueMicrotask(() => listener(why));
  }

  /** Stops the handler: aborts its signal and reports why (first call wins). */
  abort(reason: unknown, why: Interrupt = 'aborted'): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.interrupt = why;
    this.#controller?.abort(reason);
    const listener = this.#onInterrupt;
    this.#onInterrupt = undefined;
    listener?.(why);
  }

  expire(): void {
    this.abort(new Error('idle timeout'), 'timeout');
  }

  /** MRTR: the handler asked for input the client has not given yet. */
  needsInput(): void {
    this.abort(new Error('input required'), 'input');
  }

  /** Lets the handler's signal fire once the request is over, so anything it left waiting lets go. */
  finish(): void {
    if (!this.aborted && this.#controller) this.#controller.abort(new Error('request finished'));
    this.aborted = true;
    this.#onInterrupt = undefined;
  }
}
