/**
 * One task whose handler runs in this process: its record in the store, the broker that turns
 * `ctx.elicit()`/`sample()`/`listRoots()` into `input_required` and waits for `tasks/update`, and
 * the watch that aborts the handler when the task is cancelled (from any instance).
 */
import type { Revision } from '../protocol/revisions/revision.js';
import { hasCapability, requiredCapability, wellFormed, type ClientMethod, type InputBroker } from '../context/client-requests.js';
import { ErrorCode, ProtocolError, UserError } from '../protocol/errors.js';
import { isObject, type JsonObject, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import { CancelledError } from '../state/cancels.js';
import type { TaskBounds, TaskEnd, TaskError, TaskRecord } from '../state/task-store.js';
import type { ClientCapabilities, MaybePromise } from '../protocol/mcp-types.js';
import { after, tooManyTasks, type LocalTask, type TaskService } from './service.js';
import { StatusNote } from './status-note.js';
import { RELATED_TASK } from '../protocol/task-wire.js';

/**
 * 2025: what a `tasks/result` stream stores as the answer when the client answered a task's question
 * with an error (or not in time): the waiting `ctx.elicit()`/`sample()`/`listRoots()` rejects with it.
 */
export const INPUT_ERROR = 'io.minimcp/input-error';

/** The same params (or notification params) with `_meta` naming the task: every 2025 message tied to a task carries it. */
export function withRelatedTask(params: JsonObject | undefined, taskId: string): JsonObject {
  const meta = isObject(params?._meta) ? params._meta : {};
  return { ...params, _meta: { ...meta, [RELATED_TASK]: { taskId } } };
}

/** The request the task came from, as far as the task needs it. */
export interface TaskHost {
  abort(reason: unknown): void;
  readonly signal: AbortSignal;
}

interface Waiting {
  method: ClientMethod;
  resolve(answer: JsonObject): void;
  reject(error: Error): void;
}

export class TaskRun implements LocalTask, InputBroker {
  readonly record: TaskRecord;
  readonly #service: TaskService;
  readonly #host: TaskHost;
  readonly #capabilities: ClientCapabilities;
  readonly #waiting = new Map<string, Waiting>();
  #unwatch: (() => void) | undefined;
  #count = 0;
  #done = false;
  /** The handler's progress messages as the task's statusMessage (throttled to the poll interval). */
  readonly #status: StatusNote;

  constructor(service: TaskService, host: TaskHost, principal: string, protocolVersion: string, ttlMs: number, capabilities: ClientCapabilities) {
    const now = Date.now();
    const iso = new Date(now).toISOString();
    this.record = {
      taskId: crypto.randomUUID(), // 122 random bits from a CSPRNG: unguessable
      principal,
      protocolVersion,
      status: 'working',
      createdAt: iso,
      lastUpdatedAt: iso,
      ttlMs,
      pollIntervalMs: service.settings.pollIntervalMs,
      expiresAt: now + ttlMs,
      owner: service.instanceId,
    };
    this.#service = service;
    this.#host = host;
    this.#capabilities = capabilities;
    this.#status = new StatusNote((message) => {
      const written = service.store.note(this.taskId, message);
      if (written instanceof Promise) written.catch(() => {}); // a status message is a hint; the next one tries again
    }, service.settings.pollIntervalMs);
  }

  get taskId(): string {
    return this.record.taskId;
  }
  get expiresAt(): number {
    return this.record.expiresAt;
  }
  /** The handler still runs for the task (not ended, cancelled or expired). */
  get running(): boolean {
    return !this.#done && !this.#host.signal.aborted;
  }

  /** A progress message of the handler, as the task's statusMessage while it runs. */
  note(message: string): void {
    if (this.running) this.#status.set(message);
  }

  /** 2025: a notification of the handler (progress, a log), tagged with the task, to the task's open `tasks/result` streams. */
  relay(message: JsonRpcMessage): void {
    const notification = message as { method?: string; params?: JsonObject };
    this.#service.relay(this.taskId, { ...message, params: withRelatedTask(notification.params, this.taskId) } as JsonRpcMessage);
  }

  /**
   * Stores the task (durable before the creation result goes out) and starts watching it. The owner's
   * heartbeat is written first (one connection keeps the order), so no reader takes it for lost. Past
   * the per-principal cap (counted with the write, so across instances too) the handler is stopped.
   */
  create(): MaybePromise<void> {
    const service = this.#service;
    service.add(this);
    const refused = (error: unknown): never => {
      service.delete(this);
      this.#done = true;
      this.#host.abort(error);
      throw error;
    };
    let stored: MaybePromise<boolean | 'maxTasks'>;
    const settings = service.settings;
    try {
      stored = service.store.create(this.record, settings);
    } catch (error) {
      return refused(error);
    }
    const created = (ok: boolean | 'maxTasks'): void => {
      if (ok === false) refused(tooManyTasks('maxPerPrincipal', this.record.principal, settings.maxPerPrincipal));
      if (ok === 'maxTasks') refused(tooManyTasks(ok, this.record.principal, settings.maxTasks));
      this.#unwatch = service.store.watch(this.taskId, (task) => this.#changed(task));
    };
    return stored instanceof Promise ? stored.then(created, refused) : created(stored);
  }

  /** The handler ended: its result or protocol error becomes the terminal status (unless cancelled first). */
  finish(reply: JsonObject | undefined, revision: Revision): void {
    if (this.#done) return;
    const error = reply?.error as TaskError | undefined;
    const result = reply?.result as JsonObject | undefined;
    let end: TaskEnd;
    if (error) end = { status: 'failed', error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } };
    else end = { status: revision.toolErrorFailsTask && result?.isError === true ? 'failed' : 'completed', result: result ?? {} };
    this.#end(end);
  }

  /** The TTL passed while the handler ran: it is stopped and the task fails. */
  expire(): void {
    this.#host.abort(new Error('The task outlived its TTL'));
    this.#end({ status: 'failed', error: { code: ErrorCode.InternalError, message: 'The task outlived its TTL' } });
  }

  /** InputBroker: the answer if one is stored, else `input_required` until `tasks/update` brings it. */
  request(method: ClientMethod, params: JsonObject, key: string | undefined): Promise<JsonObject> {
    const k = key ?? `input-${++this.#count}`;
    const needed = requiredCapability(method, params);
    if (!hasCapability(this.#capabilities, needed)) {
      return Promise.reject(new ProtocolError(
        ErrorCode.MissingRequiredClientCapability,
        `This request needs the client capability ${Object.keys(needed).join(', ')}`,
        { requiredCapabilities: needed },
      ));
    }
    if (this.#host.signal.aborted) return Promise.reject(new UserError('The task was cancelled'));
    return new Promise<JsonObject>((resolve, reject) => {
      this.#waiting.set(k, { method, resolve, reject });
      const store = this.#service.store;
      void Promise.resolve(after(store.take(this.taskId, k), (answer) => {
        if (answer) this.#deliver(k, answer.value);
        else return store.ask(this.taskId, { [k]: { method, params } });
      })).catch((error: unknown) => this.#fail(k, error));
    });
  }

  #changed(task: TaskRecord): void {
    if (task.cancelRequested && !this.#host.signal.aborted) {
      this.#host.abort(new CancelledError('The task was cancelled'));
      for (const k of [...this.#waiting.keys()]) this.#fail(k, new UserError('The task was cancelled'));
    }
    if (task.status === 'cancelled' || task.status === 'failed' || task.status === 'completed') return this.#release();
    for (const k of [...this.#waiting.keys()]) {
      if (task.inputResponses && Object.hasOwn(task.inputResponses, k)) {
        void Promise.resolve(this.#service.store.take(this.taskId, k)).then(
          (answer) => answer && this.#deliver(k, answer.value),
          (error: unknown) => this.#fail(k, error),
        );
      }
    }
  }

  #deliver(key: string, value: unknown): void {
    const waiting = this.#waiting.get(key);
    if (!waiting) return;
    this.#waiting.delete(key);
    const failed = isObject(value) ? value[INPUT_ERROR] : undefined;
    if (typeof failed === 'string') waiting.reject(new UserError(failed)); // the client's own answer: the model may read it
    else if (wellFormed(waiting.method, value)) waiting.resolve(value);
    else waiting.reject(new ProtocolError(ErrorCode.InvalidParams, `Malformed inputResponses["${key}"] for ${waiting.method}`));
  }

  #fail(key: string, error: unknown): void {
    const waiting = this.#waiting.get(key);
    this.#waiting.delete(key);
    waiting?.reject(error instanceof Error ? error : new Error(String(error)));
  }

  #end(end: TaskEnd): void {
    if (this.#done) return;
    const service = this.#service;
    const kept = (outcome: boolean | keyof TaskBounds): void => {
      if (typeof outcome === 'string') service.resultRefused(outcome, this.record.principal);
    };
    const written = service.store.settle(this.taskId, end, service.settings);
    if (written instanceof Promise) written.then(kept, () => {}); // a lost write reads as "task lost" after the heartbeat stops
    else kept(written);
    this.#release();
  }

  #release(): void {
    if (this.#done) return;
    this.#done = true;
    this.#status.stop();
    this.#unwatch?.();
    this.#service.delete(this);
  }
}
