/**
 * A stand-in for a message broker (NATS, AMQP, a Redis list...): named topics, text payloads,
 * and the identity of the publisher as the broker authenticated it.
 */
export interface Delivery {
  /** Who published it, as the broker knows (the connection's credentials): not something the payload can claim. */
  readonly from: string;
  readonly text: string;
}

export interface Queue {
  publish(topic: string, from: string, text: string): void;
  /** Returns the function that unsubscribes. */
  subscribe(topic: string, onDelivery: (delivery: Delivery) => void): () => void;
}

/** In-process, asynchronous like a real broker: a delivery happens on a later turn, never inside publish(). */
export class MemoryQueue implements Queue {
  readonly #topics = new Map<string, Set<(delivery: Delivery) => void>>();

  publish(topic: string, from: string, text: string): void {
    const listeners = this.#topics.get(topic);
    if (!listeners) return;
    for (const listener of listeners) setImmediate(listener, { from, text });
  }

  subscribe(topic: string, onDelivery: (delivery: Delivery) => void): () => void {
    let listeners = this.#topics.get(topic);
    if (!listeners) this.#topics.set(topic, (listeners = new Set()));
    listeners.add(onDelivery);
    return () => listeners.delete(onDelivery);
  }
}
