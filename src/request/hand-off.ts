/**
 * A request that outlives its reply. Most requests end with their answer; some answer early and let
 * their handler go on (a task-augmented `tools/call` answers "task created"). The request
 * (call.ts) knows only this seam: a tenant (the task hand-off, src/tasks/hand-off.ts) implements
 * `ReplyHandOff`, and the method that decides (src/tasks/plan.ts) gives it to the request with
 * `MethodCall.outlive()`.
 */
import type { InputBroker } from '../context/client-requests.js';
import type { JsonObject, JsonRpcMessage, RequestId } from '../protocol/jsonrpc.js';
import type { Revision } from '../protocol/revisions/revision.js';
import type { Outcome } from '../transport.js';

/** What the request offers its hand-off: its answer's shape, and a way to stop waiting on its handler. */
export interface HandOffHost {
  readonly id: RequestId;
  /** The request's protocol family (the shape of what the hand-off answers). */
  readonly revision: Revision;
  /** Ends the request's own wait (no idle clock, interrupts no longer answer it); false when it had already ended. */
  conclude(): boolean;
  /** The handler's result or failure as this request would answer it. */
  result(result: JsonObject): Outcome;
  failure(error: unknown): Outcome;
  /** Answers the request (an outcome that was not ready at once). */
  reply(outcome: Outcome): void;
  /** Stops the handler (the hand-off's work was cancelled or outlived its time). */
  abort(reason: unknown): void;
  /** The handler's signal: aborted once it is stopped. */
  readonly signal: AbortSignal;
  /** The platform's waitUntil (Workers): the handler outlives the response that carried the early answer. */
  readonly waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

/** What takes a request's handler over once the request has answered. */
export interface ReplyHandOff {
  /** Once begun: where the handler's notifications go instead of the request's stream (undefined: the stream). */
  readonly send: ((message: JsonRpcMessage) => void) | undefined;
  /** Once begun: whether those notifications still go anywhere (undefined: the request decides). */
  readonly live: boolean | undefined;
  /** Once begun: where the handler's progress messages go as a status line (undefined: nowhere). */
  readonly statusNote: ((message: string) => void) | undefined;
  /** Where input the handler asks for waits once begun. */
  readonly broker: InputBroker;
  /** Begins now, before the handler's answer (`ctx.task()`, or at once where the era asks); false when already begun. */
  begin(): boolean;
  /** Whether the handler's first answer (a value or a promise) makes the request hand off. */
  takes(work: JsonObject | Promise<JsonObject>, broker: InputBroker | undefined): boolean;
  /** The request's answer is the hand-off's own; the handler goes on and its end is settled elsewhere. */
  handOff(work: JsonObject | Promise<JsonObject>): Outcome | undefined;
}
