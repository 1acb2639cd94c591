/**
 * The cancel signal of a request that may answer on SSE: the exchange's disconnect signal, except
 * that a resumable stream ended on purpose by `closeStream()` is no disconnect, and neither is a
 * 2025 session's resumable stream whose client went away (the 2025 transport: a disconnect SHOULD
 * NOT be read as a cancel; the client resumes with Last-Event-ID or sends notifications/cancelled).
 * The stream decides which; this object only relays.
 */
import { callListener, type CancelSignal } from '../../platform/cancellation.js';

type Listener = EventListenerOrEventListenerObject;

/** What the signal asks its stream when the client goes. */
export interface DisconnectPolicy {
  /** The client went: true when the request goes on (its stream is kept for a resume) instead of being cancelled. */
  keepsOnDisconnect(): boolean;
}

export class StreamCancelSignal implements CancelSignal, EventListenerObject {
  /** Listeners dispatch puts here; they live on the exchange's signal until `detach()`. */
  #listeners: Listener[] | undefined;
  #detached = false;

  constructor(
    private readonly source: CancelSignal,
    private readonly policy: DisconnectPolicy,
  ) {}

  get aborted(): boolean {
    return !this.#detached && this.source.aborted;
  }

  get reason(): unknown {
    return this.#detached ? undefined : this.source.reason;
  }

  addEventListener(_type: string, listener: Listener | null): void {
    if (this.#detached || listener === null) return;
    const first = this.#listeners === undefined;
    (this.#listeners ??= []).push(listener);
    if (first) this.source.addEventListener('abort', this);
  }

  removeEventListener(_type: string, listener: Listener | null): void {
    if (listener === null) return;
    const list = this.#listeners;
    const i = list ? list.indexOf(listener) : -1;
    if (i >= 0) list!.splice(i, 1);
  }

  /** The exchange's signal fired: the client disconnected (or the server shuts down). */
  handleEvent(event: Event): void {
    if (this.#detached || this.policy.keepsOnDisconnect()) return;
    for (const listener of this.#listeners ?? []) callListener(listener, this, event);
  }

  /** From now on the request cannot be cancelled by its connection (its stream is kept). */
  detach(): void {
    this.#detached = true;
    this.#listeners = undefined;
    this.source.removeEventListener('abort', this);
  }
}
