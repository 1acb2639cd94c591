/** What a request uses of an AbortSignal: a transport may pass this lighter object instead. */
export type CancelSignal = Pick<AbortSignal, 'aborted' | 'reason' | 'addEventListener' | 'removeEventListener'>;

type Listener = EventListenerOrEventListenerObject;

/** Calls a listener the way EventTarget does: a function, or an object's handleEvent (a request is its own listener). */
export function callListener(listener: Listener, target: unknown, event: Event): void {
  if (typeof listener === 'function') listener.call(target, event);
  else listener.handleEvent(event);
}

/**
 * A cancellation flag with a few listeners: what a request needs from an AbortSignal at a fraction
 * of its cost (on Node 20 an AbortController plus a listener costs microseconds per request).
 */
export class Cancellation implements CancelSignal {
  aborted = false;
  reason: unknown;
  // One listener in a field (an HTTP exchange has one request); a Set from the second on (a stdio
  // stream's every request listens to one signal, and leaving must not walk or splice a list).
  #one: Listener | undefined;
  #many: Set<Listener> | undefined;

  addEventListener(_type: string, listener: Listener | null): void {
    if (listener === null || listener === this.#one) return;
    if (this.#one === undefined && this.#many === undefined) this.#one = listener;
    else (this.#many ??= new Set()).add(listener);
  }

  removeEventListener(_type: string, listener: Listener | null): void {
    if (listener === null) return;
    if (listener === this.#one) this.#one = undefined;
    else this.#many?.delete(listener);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const one = this.#one;
    const many = this.#many;
    this.#one = this.#many = undefined;
    if (one !== undefined) callListener(one, this, new Event('abort'));
    if (many !== undefined) for (const listener of many) callListener(listener, this, new Event('abort'));
  }
}
