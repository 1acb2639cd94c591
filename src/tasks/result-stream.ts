/**
 * 2025 (SEP-1686): what a `tasks/result` stream carries while it waits for the task to end. The
 * task's questions (`ctx.elicit()`/`sample()`/`listRoots()` put the task in `input_required`) go to
 * the client as requests tagged with the task; the client's answer, POSTed like any 2025 answer, is
 * stored on the task, which resumes on whichever instance runs it. Status changes go out as
 * `notifications/tasks/status`, and the handler's progress and logs (from this instance) pass through.
 */
import type { Core, MethodCall } from '../request/core.js';
import type { Send } from '../transport.js';
import { ownerKey } from '../state/answers.js';
import type { TaskRecord } from '../state/task-store.js';
import { INPUT_ERROR, withRelatedTask } from './task-run.js';
import { handshakeTask } from '../protocol/task-wire.js';

export class ResultStream {
  /** Keys already asked on this stream (each is asked once per stream; a new stream asks again). */
  readonly #asked = new Set<string>();
  readonly #stopListening: () => void;
  /** Ends the questions this stream asked when it closes (its request's signal fires only when it is stopped, not when it ends). */
  readonly #closed = new AbortController();
  #status: string;
  #statusMessage: string | undefined;

  constructor(
    private readonly core: Core<unknown>,
    private readonly call: MethodCall<unknown>,
    private readonly send: Send,
    task: TaskRecord,
  ) {
    this.#status = task.status;
    this.#statusMessage = task.statusMessage;
    this.#stopListening = core.tasks.listen(task.taskId, send);
    call.ctx.signal.addEventListener('abort', () => this.close(), { once: true });
    this.#ask(task);
  }

  /** The task as last read: a status notification when it changed, and its new questions. */
  seen(task: TaskRecord): void {
    if (task.status !== this.#status || task.statusMessage !== this.#statusMessage) {
      this.#status = task.status;
      this.#statusMessage = task.statusMessage;
      // The task id is in the params: no related-task `_meta` here (the spec says SHOULD NOT).
      this.send({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: handshakeTask(task) });
    }
    this.#ask(task);
  }

  close(): void {
    this.#stopListening();
    this.#closed.abort();
  }

  #ask(task: TaskRecord): void {
    if (task.status !== 'input_required' || !task.inputRequests) return;
    const { core, call } = this;
    const store = core.tasks.store;
    const signal = this.#closed.signal;
    const owner = ownerKey(call.principal, call.connection?.id);
    for (const [key, request] of Object.entries(task.inputRequests)) {
      if (this.#asked.has(key)) continue;
      this.#asked.add(key);
      const params = withRelatedTask(request.params, task.taskId);
      core.state.answers.ask(owner, this.send, request.method, params, signal, core.settings.clientRequestTimeoutMs).then(
        (answer) => store.answer(task.taskId, call.principal, { [key]: answer }),
        (error: unknown) => {
          // The stream closed: the question stays open for the next tasks/result. Otherwise the client
          // answered with an error or not in time, and the handler's wait ends with that.
          if (signal.aborted) return;
          const message = error instanceof Error ? error.message : String(error);
          return store.answer(task.taskId, call.principal, { [key]: { [INPUT_ERROR]: message } });
        },
      ).catch((error: unknown) => call.reportError(error));
    }
  }
}
