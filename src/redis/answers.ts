/**
 * 2025 answers routed between instances. Server request ids name the instance whose handler waits
 * (`mm-<instanceId>.<uuid>`); an answer POSTed elsewhere is published on that instance's channel, the
 * owner checks who answered (principal and session) as it does for a local answer, and publishes back
 * whether it took it. So the client gets what one instance would answer: 202 when the handler took
 * the answer, -32600 when nobody it may answer waits (wrong session or principal, unknown id, the
 * instance is gone). No verdict within `ackTimeoutMs` (Redis lost meanwhile) is a -32603, never a hang.
 */
import type { CancelSignal } from '../platform/cancellation.js';
import type { JsonObject, JsonRpcErrorObject, JsonRpcMessage, RequestId } from '../protocol/jsonrpc.js';
import { PendingRequests, type AnswerRoute } from '../state/answers.js';
import type { Link } from './connection.js';

/** An answer on its way to the owner, or the owner's verdict on its way back (`ticket` pairs them). */
type Routed =
  | { kind: 'answer'; ticket: string; from: string; id: RequestId; owner: string; result?: JsonObject; error?: JsonRpcErrorObject }
  | { kind: 'verdict'; ticket: string; ok: boolean };

interface Awaiting {
  resolve(ok: boolean): void;
  reject(error: Error): void;
}

export class RedisAnswers implements AnswerRoute {
  readonly #local: PendingRequests;
  readonly #awaiting = new Map<string, Awaiting>();

  constructor(private readonly link: Link, private readonly ackTimeoutMs = 5_000) {
    this.#local = new PendingRequests(`mm-${link.instanceId}.`);
  }

  #channel(instanceId: string): string {
    return `${this.link.prefix}ans:${instanceId}`;
  }

  start(): Promise<void> {
    return this.link.listen<Routed>(this.#channel(this.link.instanceId), (routed) => {
      if (routed.kind === 'verdict') return this.#awaiting.get(routed.ticket)?.resolve(routed.ok === true);
      if (routed.kind !== 'answer') return;
      const ok = this.#local.answer(routed.id, routed.owner, routed.result, routed.error);
      const verdict: Routed = { kind: 'verdict', ticket: routed.ticket, ok };
      this.link.commands.publish(this.#channel(routed.from), JSON.stringify(verdict)).catch((error: unknown) => this.link.failed('answer verdict', error));
    });
  }

  ask(owner: string, send: (m: JsonRpcMessage) => void, method: string, params: JsonObject, signal: CancelSignal, timeoutMs: number): Promise<JsonObject> {
    return this.#local.ask(owner, send, method, params, signal, timeoutMs);
  }

  answer(id: RequestId, owner: string, result: JsonObject | undefined, error: JsonRpcErrorObject | undefined): boolean | Promise<boolean> {
    if (this.#local.answer(id, owner, result, error)) return true;
    const match = typeof id === 'string' ? /^mm-([0-9a-f]{16})\./.exec(id) : null;
    if (match === null || match[1] === this.link.instanceId) return false;
    return this.#route(match[1]!, { kind: 'answer', ticket: crypto.randomUUID(), from: this.link.instanceId, id, owner, result, error });
  }

  /** Publishes the answer to its owner and waits for the verdict; nobody subscribed (the instance is gone) is false at once. */
  #route(instanceId: string, routed: Routed & { kind: 'answer' }): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#awaiting.delete(routed.ticket);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no verdict on a routed answer within ${this.ackTimeoutMs} ms`));
      }, this.ackTimeoutMs);
      this.#awaiting.set(routed.ticket, { resolve: (ok) => (done(), resolve(ok)), reject: (e) => (done(), reject(e)) });
      this.link.commands.publish(this.#channel(instanceId), JSON.stringify(routed)).then(
        (receivers) => receivers === 0 && this.#awaiting.get(routed.ticket)?.resolve(false),
        (error: unknown) => this.#awaiting.get(routed.ticket)?.reject(error instanceof Error ? error : new Error(String(error))),
      );
    });
  }
}
