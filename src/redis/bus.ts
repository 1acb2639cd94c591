/**
 * The notification bus over Redis pub/sub: publish goes to Redis only, and every instance (this one
 * included) delivers what it receives. So each listening stream gets each event once, and events
 * from one publisher arrive in the order they were published; a request answers once its publishes
 * reached Redis (`pending`), so changes ordered by a client's requests arrive in that order from any
 * instances. A lost list_changed means a stale list, never a wrong answer: publish failures are
 * counted (`stats.lostFanOut`) and logged.
 */
import { MemoryBus, type BusEvent, type NotificationBus } from '../state/bus.js';
import { ACKNOWLEDGE_WAIT_MS, waitAtMost, type Link } from './connection.js';

export class RedisBus implements NotificationBus {
  readonly #local = new MemoryBus();
  readonly #channel: string;
  /** The newest publish not yet acknowledged (none: undefined). */
  #last: Promise<void> | undefined;

  constructor(private readonly link: Link) {
    this.#channel = `${link.prefix}bus`;
  }

  start(): Promise<void> {
    return this.link.listen<BusEvent>(this.#channel, (event) => this.#local.publish(event));
  }

  publish(event: BusEvent): void {
    const sent = this.link.commands.publish(this.#channel, JSON.stringify(event)).then(
      () => {},
      (error: unknown) => this.link.failed('fan-out', error),
    );
    // One connection: when the last publish is acknowledged, every earlier one is too.
    this.#last = sent;
    void sent.then(() => {
      if (this.#last === sent) this.#last = undefined;
    });
  }

  /** The publishes on their way, bounded: a Redis that stops answering must not hold answers back for long. */
  pending(): Promise<void> | undefined {
    const last = this.#last;
    return last === undefined ? undefined : waitAtMost(last, ACKNOWLEDGE_WAIT_MS);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    return this.#local.subscribe(listener);
  }
}
