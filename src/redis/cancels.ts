/**
 * notifications/cancelled between instances: the cancel may arrive on any instance, so besides the
 * local registry it is published to all (cancels are rare); each aborts the request if it runs it.
 * Best effort, as the spec allows: a cancel lost while Redis is away is counted and logged.
 */
import { RequestRegistry, type Abortable, type CancelRoute } from '../state/cancels.js';
import type { Link } from './connection.js';

export class RedisCancels implements CancelRoute {
  readonly #local = new RequestRegistry();
  readonly #channel: string;

  constructor(private readonly link: Link) {
    this.#channel = `${link.prefix}cancel`;
  }

  start(): Promise<void> {
    return this.link.listen<{ key: string; reason: string; from: string }>(this.#channel, ({ key, reason, from }) => {
      if (from !== this.link.instanceId) this.#local.cancel(key, String(reason));
    });
  }

  add(key: string, request: Abortable): void {
    this.#local.add(key, request);
  }

  delete(key: string, request: Abortable): void {
    this.#local.delete(key, request);
  }

  cancel(key: string, reason: string): void {
    this.#local.cancel(key, reason);
    const message = JSON.stringify({ key, reason, from: this.link.instanceId });
    this.link.commands.publish(this.#channel, message).catch((error: unknown) => this.link.failed('cancel', error));
  }
}
