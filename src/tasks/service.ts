/**
 * The instance side of tasks: the store, this process's id, the settings, and the tasks whose
 * handlers run here. One shared interval (only while tasks run here) renews this instance's
 * heartbeat in the store and aborts handlers whose task outlived its TTL: no timer per task.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { TaskStore } from '../state/task-store.js';
import { addToKeyedSet, callEach } from '../state/keyed-sets.js';
import type { MaybePromise, Send } from '../types.js';


export interface TaskSettings {
  /** TTL when the client names none (2025 `task.ttl`); 2026 tasks always get it. Default 1 hour. */
  defaultTtlMs: number;
  /** The cap on any TTL a client asks for. Default 24 hours. */
  maxTtlMs: number;
  /** The poll interval suggested to clients. Default 1 s. */
  pollIntervalMs: number;
  /** Live (non-terminal) tasks one principal may have; past it, tools/call is refused. Default 100. */
  maxPerPrincipal: number;
  /** How often the heartbeat is written; an owner silent for 3 beats is taken for dead. Default 10 s. */
  heartbeatMs: number;
}

/** What the service needs of a running task. */
export interface LocalTask {
  readonly taskId: string;
  readonly expiresAt: number;
  /** The TTL passed: stop the handler. */
  expire(): void;
}

/** Past the per-principal cap on live tasks. */
export const tooManyTasks = (max: number): McpError =>
  new McpError(ErrorCode.InvalidRequest, `Too many live tasks: at most ${max} per client; wait for one to finish`);

/** Applies `next` now when `value` is plain, after it when it is a promise: one process pays no promise. */
export function after<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

export class TaskService {
  #instanceId: string | undefined;
  readonly #running = new Set<LocalTask>();
  /** 2025: the `tasks/result` streams open in this process, by task: where a task's progress and logs go. */
  readonly #streams = new Map<string, Set<Send>>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly store: TaskStore,
    readonly settings: TaskSettings,
  ) {}

  /** This process's id as a task owner; made on first use (Workers allow no random values at start-up). */
  get instanceId(): string {
    this.#instanceId ??= crypto.randomUUID();
    return this.#instanceId;
  }

  /** How many tasks run in this process. */
  get running(): number {
    return this.#running.size;
  }

  add(task: LocalTask): void {
    this.#running.add(task);
    if (this.#timer) return;
    this.#beat();
    this.#timer = setInterval(() => this.#tick(), this.settings.heartbeatMs);
    this.#timer.unref?.();
  }

  delete(task: LocalTask): void {
    this.#running.delete(task);
    if (this.#running.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** A `tasks/result` stream takes the task's messages (progress, logs) while it is open; returns the stop. */
  listen(taskId: string, send: Send): () => void {
    const shared = this.store.messages;
    return shared ? shared.listen(taskId, send) : addToKeyedSet(this.#streams, taskId, send);
  }

  /** A message of a task running here, to its open `tasks/result` streams (on every instance when the store carries them; none open: dropped). */
  relay(taskId: string, message: JsonRpcMessage): void {
    const shared = this.store.messages;
    if (shared) return shared.publish(taskId, message);
    callEach(this.#streams.get(taskId) ?? [], message);
  }

  #tick(): void {
    const now = Date.now();
    for (const task of [...this.#running]) if (task.expiresAt <= now) task.expire();
    this.#beat();
  }

  #beat(): void {
    try {
      const written = this.store.beat(this.instanceId, Date.now() + 3 * this.settings.heartbeatMs);
      if (written instanceof Promise) written.catch(() => {}); // the next beat tries again
    } catch {
      // as above
    }
  }
}
