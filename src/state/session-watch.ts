/**
 * A 2025 session's one notification channel (the HTTP GET stream): list changes, and updates of the
 * resources the session subscribed to, wherever they were raised. One per session: a second is
 * refused while the first holds the claim in the session store.
 */
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import { notificationOf, type BusEvent } from './bus.js';
import type { SharedState } from './index.js';

export class SessionWatch {
  #unsubscribe: (() => void) | undefined;
  readonly #holder = crypto.randomUUID();
  /** The delivery still waiting on the session store, if any: later events queue behind it. */
  #tail: Promise<void> | undefined;

  constructor(
    private readonly state: SharedState,
    /** The session's key in the store (the random part of its id). */
    private readonly session: string,
    private readonly send: (message: JsonRpcMessage) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Claims the session's stream (false: another stream holds it) and starts listening. Also renews a shared claim. */
  async claim(): Promise<boolean> {
    const claimed = await this.state.sessions.claimStream(this.session, this.#holder);
    if (claimed && this.#unsubscribe === undefined) this.#unsubscribe = this.state.bus.subscribe((event) => this.#deliver(event));
    return claimed;
  }

  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.state.sessions.releaseStream(this.session, this.#holder);
  }

  // In bus order, also when the subscriptions come from a shared store (a promise): a list_changed must
  // not overtake an update still waiting on its lookup. In memory nothing waits and no promise is made.
  #deliver(event: BusEvent): void {
    const pending = this.#tail;
    const next = pending === undefined ? this.#deliverNow(event) : pending.then(() => this.#deliverNow(event));
    if (!(next instanceof Promise)) return;
    const tail: Promise<void> = next.catch(this.onError).finally(() => {
      if (this.#tail === tail) this.#tail = undefined;
    });
    this.#tail = tail;
  }

  #deliverNow(event: BusEvent): void | Promise<void> {
    if (event.type !== 'resources/updated') return this.#send(event);
    const state = this.state.sessions.get(this.session);
    if (!(state instanceof Promise)) {
      if (state?.subscriptions?.includes(event.uri)) this.#send(event);
      return;
    }
    return state.then((loaded) => {
      if (loaded?.subscriptions?.includes(event.uri)) this.#send(event);
    });
  }

  #send(event: BusEvent): void {
    if (this.#unsubscribe === undefined) return;
    const { method, params } = notificationOf(event);
    this.send(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method });
  }
}
