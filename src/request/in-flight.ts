/**
 * Requests being handled, so `notifications/cancelled` can abort the right one. Ids are only unique
 * per client, so the key holds who asked (the principal) and on which connection (stdio stream or
 * 2025 session): another principal's cancel, even with the same session id, matches nothing.
 */
import type { RequestId } from '../protocol/jsonrpc.js';

interface Abortable {
  abort(reason: unknown): void;
}

export class RequestRegistry {
  readonly #running = new Map<string, Abortable>();

  static key(principal: string, connectionId: string | undefined, id: RequestId): string {
    // Length-prefixed, so no principal or connection id can be made to run into the next part.
    return `${principal.length}:${principal}${connectionId ?? ''}\u0000${typeof id}:${id}`;
  }

  add(key: string, request: Abortable): void {
    this.#running.set(key, request);
  }

  delete(key: string, request: Abortable): void {
    if (this.#running.get(key) === request) this.#running.delete(key);
  }

  /** Aborts the request; unknown or finished ids are ignored, as the spec says. */
  cancel(key: string, reason: string): void {
    this.#running.get(key)?.abort(new CancelledError(reason));
  }
}

/** The abort reason of a request the client cancelled: it gets no answer. */
export class CancelledError extends Error {
  override name = 'CancelledError';
}
