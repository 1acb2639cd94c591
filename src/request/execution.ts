/**
 * The life of one running request: why it stopped early (cancelled, timed out, input needed), its
 * idle clock, and its AbortSignal. The signal is created only when someone reads it: most handlers
 * never do, and an AbortController costs more than the rest of a no-op request on Node 20.
 */
import { Cancellation, type CancelSignal } from '../platform/cancellation.js';
import { CancelledError } from '../state/cancels.js';

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
  /** The request is over (answered, or stopped): late notifications are dropped. */
  ended = false;
  #controller: AbortController | undefined;
  #lifetime: Cancellation | undefined;

  /** The handler's signal: aborted on cancellation, disconnect, timeout or shutdown, never on normal completion. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /**
   * Fires when the request stops or ends, normal completion included: what the framework's own
   * waits (a 2025 server-to-client request) listen to, so nothing outlives its request.
   */
  get lifetime(): CancelSignal {
    if (!this.#lifetime) {
      this.#lifetime = new Cancellation();
      if (this.aborted || this.ended) this.#lifetime.abort(this.reason ?? new Error('request finished'));
    }
    return this.#lifetime;
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
   * Stops the handler: aborts its signal and reports why (first call wins) to `interrupted`, which
   * a subclass overrides. A method, not a promise or a listener: only requests that wait on a
   * handler's promise care, and a promise per request is what AsyncLocalStorage makes expensive.
   */
  abort(reason: unknown, why: Interrupt = 'aborted'): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.interrupt = why;
    this.#controller?.abort(reason);
    this.#lifetime?.abort(reason);
    this.interrupted(why);
  }

  protected interrupted(_why: Interrupt): void {}

  expire(): void {
    this.abort(new Error('idle timeout'), 'timeout');
  }

  /** MRTR: the handler asked for input the client has not given yet. */
  needsInput(): void {
    this.abort(new Error('input required'), 'input');
  }

  /**
   * The request is over. Its signal stays as it is: a handler that finished normally is not
   * aborted (work it started on purpose may go on); cancel, disconnect, timeout and shutdown abort.
   */
  end(): void {
    this.ended = true;
    this.#lifetime?.abort(new Error('request finished'));
  }
}
