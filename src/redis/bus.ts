/**
 * The notification bus over Redis pub/sub: publish goes to Redis only, and every instance (this one
 * included) delivers what it receives. So each listening stream gets each event once, and events
 * from one publisher arrive in the order they were published. A lost list_changed means a stale
 * list, never a wrong answer: publish failures are counted (`stats.lostFanOut`) and logged.
 */
import { MemoryBus, type BusEvent, type NotificationBus } from '../state/bus.js';
import type { Link } from './connection.js';

export class RedisBus implements NotificationBus {
  readonly #local = new MemoryBus();
  readonly #channel: string;

  constructor(private readonly link: Link) {
    this.#channel = `${link.prefix}bus`;
  }

  start(): Promise<void> {
    return this.link.listen<BusEvent>(this.#channel, (event) => this.#local.publish(event));
  }

  publish(event: BusEvent): void {
    this.link.commands.publish(this.#channel, JSON.stringify(event)).catch((error: unknown) => this.link.failed('fan-out', error));
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    return this.#local.subscribe(listener);
  }
}
