/**
 * 2025 server-to-client requests (elicitation, sampling, roots) waiting for the client's answer.
 * The client POSTs its answer as a JSON-RPC response, possibly to another instance than the one whose
 * handler waits: `answer()` routes it there. Only the principal and connection the request went to may
 * answer (the `owner`); anyone else's response with that id matches nothing.
 */
import type { CancelSignal } from '../platform/cancellation.js';
import type { JsonObject, JsonRpcErrorObject, JsonRpcMessage, RequestId } from '../protocol/jsonrpc.js';
import { UserError } from '../protocol/errors.js';
import type { MaybePromise } from '../protocol/mcp-types.js';


/** The seam: the in-memory default serves one process; a shared one routes answers between instances. */
export interface AnswerRoute {
  /** Sends the request and resolves with the client's result; rejects on error, abort or timeout. */
  ask(owner: string, send: (m: JsonRpcMessage) => void, method: string, params: JsonObject, signal: CancelSignal, timeoutMs: number): Promise<JsonObject>;
  /** Routes a client's response; false (or a promise of it) when nobody `owner` asked waits for that id. */
  answer(id: RequestId, owner: string, result: JsonObject | undefined, error: JsonRpcErrorObject | undefined): MaybePromise<boolean>;
}

interface Pending {
  readonly owner: string;
  resolve(result: JsonObject): void;
  reject(error: Error): void;
}

/** The waiting requests of this process, by unguessable id (`<idPrefix><uuid>`). */
export class PendingRequests implements AnswerRoute {
  readonly #waiting = new Map<RequestId, Pending>();

  /** `idPrefix` names the instance in a shared setup, so an answer can be routed to it. */
  constructor(readonly idPrefix = 'mm-') {}

  get size(): number {
    return this.#waiting.size;
  }

  ask(
    owner: string, send: (m: JsonRpcMessage) => void, method: string, params: JsonObject, signal: CancelSignal, timeoutMs: number,
  ): Promise<JsonObject> {
    const id = `${this.idPrefix}${crypto.randomUUID()}`;
    return new Promise<JsonObject>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.#waiting.delete(id);
      };
      const onAbort = (): void => {
        done();
        reject(new UserError(`The request was cancelled while waiting for the client's ${method} answer`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new UserError(`The client did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(id, {
        owner,
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
      });
      send({ jsonrpc: '2.0', id, method, params });
    });
  }

  answer(id: RequestId, owner: string, result: JsonObject | undefined, error: JsonRpcErrorObject | undefined): boolean {
    const pending = this.#waiting.get(id);
    if (!pending || pending.owner !== owner) return false;
    if (error) pending.reject(new UserError(`The client answered with an error: ${error.message}`));
    else pending.resolve(result ?? {});
    return true;
  }
}

/** Who may answer a 2025 server-to-client request: the principal and the connection it went to. */
export const ownerKey = (principal: string, connectionId: string | undefined): string =>
  `${principal.length}:${principal}${connectionId ?? ''}`;
