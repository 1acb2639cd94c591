/**
 * The requests a gateway has sent upstream and not yet seen answered, by id: their hooks (where
 * their progress, logs and questions go) and how each one ends. One table per upstream connection.
 */
import { isObject, type JsonObject, type RequestId } from '../protocol/jsonrpc.js';
import { type CallHooks, UpstreamError, UpstreamUnavailable } from './types.js';

interface Waiting {
  readonly hooks: CallHooks;
  resolve(result: JsonObject): void;
  reject(error: Error): void;
}

export class PendingRequests {
  readonly #waiting = new Map<RequestId, Waiting>();
  #next = 0;

  get size(): number {
    return this.#waiting.size;
  }

  /** A fresh id and the promise of its answer. */
  open(hooks: CallHooks): { id: number; answer: Promise<JsonObject> } {
    const id = ++this.#next;
    const answer = new Promise<JsonObject>((resolve, reject) => this.#waiting.set(id, { hooks, resolve, reject }));
    return { id, answer };
  }

  hooksOf(id: RequestId): CallHooks | undefined {
    return this.#waiting.get(id)?.hooks;
  }

  /** The hooks of the only request in flight: side traffic with no request id can go to it alone. */
  sole(): CallHooks | undefined {
    if (this.#waiting.size !== 1) return undefined;
    for (const waiting of this.#waiting.values()) return waiting.hooks;
    return undefined;
  }

  /** Settles the request a response answers; false when no request waits for that id. */
  settle(message: JsonObject): boolean {
    const id = message.id as RequestId;
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return false;
    this.#waiting.delete(id);
    if (isObject(message.error)) {
      const { code, message: text, data } = message.error;
      waiting.reject(new UpstreamError(typeof code === 'number' ? code : -32603, typeof text === 'string' ? text : 'Upstream error', data));
    } else waiting.resolve(isObject(message.result) ? message.result : {});
    return true;
  }

  /** Ends one request without an answer (cancelled, too large, its stream broke). */
  fail(id: RequestId, error: Error): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    waiting.reject(error);
  }

  /** Ends every request: the upstream went away. */
  failAll(reason: string): void {
    const all = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const waiting of all) waiting.reject(new UpstreamUnavailable(reason));
  }
}
