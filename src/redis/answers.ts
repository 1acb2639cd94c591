/**
 * 2025 answers routed between instances. Server request ids name the instance whose handler waits
 * (`mm-<instanceId>.<uuid>`); an answer POSTed elsewhere is published on that instance's channel, and
 * the owner checks who answered (principal and session) as it does for a local answer. With nobody
 * subscribed (the instance is gone), the answer is refused like any unknown one.
 */
import type { CancelSignal } from '../context/cancellation.js';
import type { JsonObject, JsonRpcErrorObject, JsonRpcMessage, RequestId } from '../protocol/jsonrpc.js';
import { PendingRequests, type AnswerRoute } from '../state/answers.js';
import type { Link } from './connection.js';

interface RoutedAnswer {
  id: RequestId;
  owner: string;
  result?: JsonObject;
  error?: JsonRpcErrorObject;
}

export class RedisAnswers implements AnswerRoute {
  readonly #local: PendingRequests;

  constructor(private readonly link: Link) {
    this.#local = new PendingRequests(`mm-${link.instanceId}.`);
  }

  #channel(instanceId: string): string {
    return `${this.link.prefix}ans:${instanceId}`;
  }

  async start(): Promise<void> {
    await this.link.subscriber.subscribe(this.#channel(this.link.instanceId), (message) => {
      try {
        const routed = JSON.parse(message) as RoutedAnswer;
        this.#local.answer(routed.id, routed.owner, routed.result, routed.error);
      } catch {
        // not ours
      }
    });
  }

  ask(owner: string, send: (m: JsonRpcMessage) => void, method: string, params: JsonObject, signal: CancelSignal, timeoutMs: number): Promise<JsonObject> {
    return this.#local.ask(owner, send, method, params, signal, timeoutMs);
  }

  answer(id: RequestId, owner: string, result: JsonObject | undefined, error: JsonRpcErrorObject | undefined): boolean | Promise<boolean> {
    if (this.#local.answer(id, owner, result, error)) return true;
    const match = typeof id === 'string' ? /^mm-([0-9a-f]{16})\./.exec(id) : null;
    if (match === null || match[1] === this.link.instanceId) return false;
    const routed: RoutedAnswer = { id, owner, result, error };
    return this.link.commands.publish(this.#channel(match[1]!), JSON.stringify(routed)).then((receivers) => receivers > 0);
  }
}
