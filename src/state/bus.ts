/**
 * Server-wide notifications (list changes, resource updates) fanned out to whoever listens: a stdio
 * connection, a 2026 `subscriptions/listen` stream. The interface is small so a multi-instance bus
 * (Redis, NATS...) can replace the in-process default.
 */
export type BusEvent =
  | { type: 'tools/list_changed' | 'prompts/list_changed' | 'resources/list_changed' }
  | { type: 'resources/updated'; uri: string };

export interface NotificationBus {
  publish(event: BusEvent): void;
  /** Returns the function that unsubscribes. */
  subscribe(listener: (event: BusEvent) => void): () => void;
}

export class MemoryBus implements NotificationBus {
  readonly #listeners = new Set<(event: BusEvent) => void>();

  publish(event: BusEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // One broken listener (a closed stream) must not stop the others.
      }
    }
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** The notification a bus event becomes on the wire. */
export function notificationOf(event: BusEvent): { method: string; params?: { uri: string } } {
  return event.type === 'resources/updated'
    ? { method: 'notifications/resources/updated', params: { uri: event.uri } }
    : { method: `notifications/${event.type}` };
}
