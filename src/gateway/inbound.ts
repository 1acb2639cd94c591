/**
 * What an upstream sends that is not the answer to a request: notifications and its own requests.
 * Progress goes to the request whose token it carries (the gateway uses the upstream request id as
 * the token); logs and questions go to the request they came with (HTTP: the POST's stream), else to
 * the only request in flight; anything else concerns the connection (list_changed, updates).
 */
import { isObject, type JsonObject, type RequestId } from '../protocol/jsonrpc.js';
import type { PendingRequests } from './pending.js';
import type { CallHooks, ConnectionListener, UpstreamAsk } from './types.js';

const ASKS = new Set<string>(['elicitation/create', 'sampling/createMessage', 'roots/list']);

export type Reply = (message: JsonObject) => void;

export class UpstreamInbound {
  readonly #listeners = new Set<ConnectionListener>();

  constructor(
    private readonly pending: PendingRequests,
    private readonly note: (line: string) => void,
  ) {}

  listen(listener: ConnectionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells the listeners something of the gateway's own (a restart: lists may have changed). */
  announce(method: string): void {
    for (const listener of this.#listeners) listener(method, {});
  }

  /** Handles one message; `related` is the request whose stream carried it, when known. */
  receive(message: JsonObject, reply: Reply, related?: CallHooks): void {
    const method = message.method;
    if (typeof method !== 'string') {
      if (!this.pending.settle(message)) this.note(`dropped a response to an unknown request id ${JSON.stringify(message.id)}`);
      return;
    }
    const params = isObject(message.params) ? message.params : {};
    if (message.id === undefined || message.id === null) this.#notification(method, params, related);
    else this.#request(message.id as RequestId, method, params, reply, related);
  }

  #notification(method: string, params: JsonObject, related: CallHooks | undefined): void {
    if (method === 'notifications/progress') {
      const hooks = this.pending.hooksOf(params.progressToken as RequestId) ?? related;
      const { progress, total, message } = params;
      if (typeof progress === 'number') hooks?.progress?.(progress, typeof total === 'number' ? total : undefined, typeof message === 'string' ? message : undefined);
      return;
    }
    if (method === 'notifications/message') {
      const hooks = related ?? this.pending.sole();
      if (hooks?.log) hooks.log(params);
      else this.note(`log: ${JSON.stringify(params.data)}`);
      return;
    }
    if (method === 'notifications/cancelled') return;
    for (const listener of this.#listeners) listener(method, params);
  }

  #request(id: RequestId, method: string, params: JsonObject, reply: Reply, related: CallHooks | undefined): void {
    if (method === 'ping') return reply({ jsonrpc: '2.0', id, result: {} });
    if (!ASKS.has(method)) return reply({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
    // A question with no request to ask it for (or with several in flight on a shared stdio child) is refused: it must never reach another caller.
    const ask = (related ?? this.pending.sole())?.ask;
    if (ask === undefined) {
      return reply({ jsonrpc: '2.0', id, error: { code: -32603, message: `${method} outside a call the gateway can tie it to` } });
    }
    ask(method as UpstreamAsk, params).then(
      (result) => reply({ jsonrpc: '2.0', id, result }),
      (error: unknown) => reply({ jsonrpc: '2.0', id, error: { code: -32603, message: (error as Error)?.message ?? 'The client did not answer' } }),
    );
  }
}
