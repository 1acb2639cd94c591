/**
 * Server-wide notifications (list changes, resource updates) fanned out to whoever listens: a stdio
 * connection, a 2026 `subscriptions/listen` stream. The interface is small so a multi-instance bus
 * (Redis, NATS...) can replace the in-process default.
 */
import { EncodedNotification, type RequestId } from '../protocol/jsonrpc.js';
import { META } from '../protocol/versions.js';
import { callEach } from './keyed-sets.js';

export type BusEvent =
  | { type: 'tools/list_changed' | 'prompts/list_changed' | 'resources/list_changed' | 'events/list_changed' }
  | { type: 'resources/updated'; uri: string };

export interface NotificationBus {
  publish(event: BusEvent): void;
  /** Returns the function that unsubscribes. */
  subscribe(listener: (event: BusEvent) => void): () => void;
  /**
   * Optional, for a bus between instances: settles (never rejects) once every event published here
   * so far reached the bus; undefined when none is on its way. A request answers only after it, so a
   * change its handler raised is ordered before any change raised after its client saw the answer,
   * on whichever instance. The in-process bus delivers at once and needs none.
   */
  pending?(): Promise<void> | undefined;
}

export class MemoryBus implements NotificationBus {
  readonly #listeners = new Set<(event: BusEvent) => void>();

  publish(event: BusEvent): void {
    callEach(this.#listeners, event);
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

/** Where the subscription id goes in an event's text. */
const ID_SLOT = '\u0000subscription-id\u0000';

/** An event as a notification, and its text on either side of the subscription id: made once per event. */
interface Encoded {
  readonly method: string;
  readonly params: { uri: string } | undefined;
  readonly parts: readonly string[];
}
const encoded = new WeakMap<BusEvent, Encoded>();

function encodedOf(event: BusEvent): Encoded {
  let entry = encoded.get(event);
  if (entry === undefined) {
    const { method, params } = notificationOf(event);
    const parts = JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, _meta: { [META.subscriptionId]: ID_SLOT } } }).split(JSON.stringify(ID_SLOT));
    encoded.set(event, (entry = { method, params, parts }));
  }
  return entry;
}

/**
 * The notification a bus event becomes on a `subscriptions/listen` stream, tagged with the stream's
 * subscription id. One event goes to every stream, so its text is encoded once (per event, not per
 * stream) and each stream splices in its id: `idJson` is `JSON.stringify(id)`.
 */
export function taggedNotification(event: BusEvent, id: RequestId, idJson: string): EncodedNotification {
  const { method, params, parts } = encodedOf(event);
  const tagged = { ...params, _meta: { [META.subscriptionId]: id } };
  // The slot cannot occur in a URI's JSON text, but if it ever did, the split is not two parts: encode as usual.
  return new EncodedNotification(method, tagged, parts.length === 2 ? parts[0] + idJson + parts[1] : JSON.stringify({ jsonrpc: '2.0', method, params: tagged }));
}
