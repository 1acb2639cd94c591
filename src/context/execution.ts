/**
 * The life of one running request: why it stopped early (cancelled, timed out, input needed), its
 * idle clock, and its AbortSignal. The signal is created only when someone reads it: most handlers
 * never do, and an AbortController costs more than the rest of a no-op request on Node 20.
 */
import { CancelledError } from './in-flight.js';

export type Interrupt = 'timeout' | 'aborted' | 'input';

export class Execution {
  /** When the handler last showed a sign of life (progress, a notification, resetTimeout). */
  lastActive = Date.now();
  /** > 0 while the handler waits on the client (a person may be answering): the idle clock stops. */
  paused = 0;
  aborted = false;
  reason: unknown;
  #controller: AbortController | undefined;
  #settle!: (why: Interrupt) => void;
  /** Settles once, with the first reason the request must stop waiting for its handler. */
  readonly interrupted = new Promise<Interrupt>((resolve) => (this.#settle = resolve));

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

  /** Stops the handler: aborts its signal and settles `interrupted` (first call wins). */
  abort(reason: unknown, why: Interrupt = 'aborted'): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    this.#settle(why);
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
  }
}
