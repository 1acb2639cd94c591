/**
 * How a `tools/call` of a task tool becomes a task: the request's reply becomes the creation result
 * while the handler goes on, and the handler's end settles the task. The request's side of the seam
 * is request/hand-off.ts; plan.ts decides which calls get one.
 */
import { MrtrBroker, type InputBroker } from '../context/client-requests.js';
import type { Outcome } from '../transport.js';
import type { JsonObject, JsonRpcMessage } from '../protocol/jsonrpc.js';
import { resultOutcome } from '../request/outcome.js';
import type { HandOffHost, ReplyHandOff } from '../request/hand-off.js';
import type { TaskRun } from './task-run.js';
import type { MaybePromise } from '../protocol/mcp-types.js';

export class TaskHandOff implements ReplyHandOff {
  #stored: MaybePromise<void> | undefined;
  #storing = false;
  /** The store refused the task at once (a bound reached): that refusal is the request's answer. */
  #refused: { error: unknown } | undefined;

  constructor(
    readonly run: TaskRun,
    readonly host: HandOffHost,
    /** A task only once stored (`ctx.task()`), never merely because the handler waits. */
    readonly onRequest = false,
  ) {}

  /**
   * 2025, once the task is stored: where the handler's notifications go (the task's open
   * `tasks/result` streams, tagged with the task). Undefined otherwise: the request's own stream.
   */
  get send(): ((message: JsonRpcMessage) => void) | undefined {
    return this.host.revision.relaysTaskMessages && this.#storing ? this.#relay : undefined;
  }

  /** Whether the handler's notifications still go anywhere; undefined where the request decides. */
  get live(): boolean | undefined {
    return this.host.revision.relaysTaskMessages && this.#storing ? this.run.running : undefined;
  }

  readonly #relay = (message: JsonRpcMessage): void => this.run.relay(message);

  /** Once the call is a task (stored): where the handler's progress messages go as its statusMessage. */
  get statusNote(): ((message: string) => void) | undefined {
    return this.#storing ? this.#note : undefined;
  }

  readonly #note = (message: string): void => this.run.note(message);

  /** Input asked once the call is a task waits in the task (`input_required`, answered by `tasks/update`). */
  get broker(): InputBroker {
    return this.run;
  }

  /** Stores the task now (2025, or `ctx.task()`), so input asked from here on waits in it. False when already stored. */
  begin(): boolean {
    if (this.#storing) return false;
    this.#storing = true;
    try {
      this.#stored = this.run.create();
    } catch (error) {
      this.#refused = { error };
      throw error;
    }
    return true;
  }

  /**
   * Whether the handler's first answer makes the call a task: always once stored; otherwise (2026)
   * when it waits on anything but MRTR input, so MRTR rounds stay plain MRTR and a synchronous
   * answer stays a plain result.
   */
  takes(work: JsonObject | Promise<JsonObject>, broker: InputBroker | undefined): boolean {
    if (this.#storing) return true;
    return !this.onRequest && work instanceof Promise && !(broker instanceof MrtrBroker && Object.keys(broker.inputRequests).length > 0);
  }

  /** The request's reply becomes the creation result; the handler goes on, and its end settles the task. */
  handOff(work: JsonObject | Promise<JsonObject>): Outcome | undefined {
    const { run, host } = this;
    host.conclude();
    const settled = Promise.resolve(work).then(
      (result) => run.finish(host.result(result).reply, host.revision),
      (error: unknown) => run.finish(host.failure(error).reply, host.revision),
    );
    host.waitUntil?.(settled);
    const created = () => resultOutcome(host.id, host.revision.taskCreated(run.record));
    if (!this.#storing) this.begin();
    if (this.#refused !== undefined) return host.failure(this.#refused.error); // no task was stored: never answer one
    const stored = this.#stored;
    if (!(stored instanceof Promise)) return created();
    stored.then(() => host.reply(created()), (error: unknown) => host.reply(host.failure(error)));
    return undefined;
  }
}
