/**
 * Requests being handled, so `notifications/cancelled` can abort the right one. Ids are only unique
 * per client, so the key holds who asked (the principal) and on which connection (stdio stream or
 * 2025 session): another principal's cancel, even with the same session id, matches nothing.
 */
import type { RequestId } from '../protocol/jsonrpc.js';

export interface Abortable {
  abort(reason: unknown): void;
}

/**
 * The seam: where `notifications/cancelled` finds the running request. The in-memory default serves
 * one process; a shared one also tells the other instances, since the cancel may arrive anywhere.
 */
export interface CancelRoute {
  add(key: string, request: Abortable): void;
  delete(key: string, request: Abortable): void;
  /** Aborts the request under `key` wherever it runs; unknown or finished ones are ignored. */
  cancel(key: string, reason: string): void;
}

/** Builds the key a request is registered under (who asked, on which connection, which id). */
export const cancelKey = (principal: string, connectionId: string | undefined, id: RequestId): string =>
  // Length-prefixed, so no principal or connection id can be made to run into the next part.
  `${principal.length}:${principal}${connectionId ?? ''}\u0000${typeof id}:${id}`;

export class RequestRegistry implements CancelRoute {
  readonly #running = new Map<string, Abortable>();

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
