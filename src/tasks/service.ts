/**
 * The instance side of tasks: the store, this process's id, the settings, and the tasks whose
 * handlers run here. One shared interval (only while tasks run here) renews this instance's
 * heartbeat in the store; one timer, set for the soonest expiry, stops a handler whose task
 * outlived its TTL when it does (not at the next beat): no timer per task.
 */
import { ErrorCode } from '../protocol/errors.js';
import { BoundReached, firstTimeReached } from '../state/bounds.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import { tooLarge, type TaskBounds, type TaskStore } from '../state/task-store.js';
import { addToKeyedSet, callEach } from '../state/keyed-sets.js';
import type { MaybePromise, Send } from '../protocol/mcp-types.js';


declare module '../request/core.js' {
  interface Tenants {
    /** Tasks: the store, this instance's id and the task settings (made by the server's options). */
    readonly tasks: TaskService;
  }
}

export interface TaskSettings {
  /** TTL when the client names none (2025 `task.ttl`); 2026 tasks always get it. Default 1 hour. */
  defaultTtlMs: number;
  /** The cap on any TTL a client asks for. Default 24 hours. */
  maxTtlMs: number;
  /**
   * The floor under any TTL a client asks for: a task (finished or not) counts against
   * `maxPerPrincipal` until it expires, so a tiny TTL must not turn the cap into a rate. Default 10 s.
   */
  minTtlMs: number;
  /** The poll interval suggested to clients. Default 1 s. */
  pollIntervalMs: number;
  /** Tasks one principal may keep, finished ones included until they expire; past it, tools/call is refused (-32602). Default 100. */
  maxPerPrincipal: number;
  /** Tasks kept, all principals; past it, tools/call is refused (-32603). Default 10,000. */
  maxTasks: number;
  /** Characters of one task's result (or error) as JSON; a larger one is not kept: the task fails naming the bound. Default 1 MiB. */
  maxResultChars: number;
  /** Characters of the results of one principal's kept tasks; past it, as above. Default 16 MiB. */
  maxStoredCharsPerPrincipal: number;
  /** Characters of the results of all kept tasks; past it, as above. Default 128 MiB. */
  maxStoredChars: number;
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

/** Past the per-principal cap on kept tasks (-32602), or the server-wide one (-32603). */
export function tooManyTasks(bound: 'maxPerPrincipal' | 'maxTasks', principal: string, max: number): BoundReached {
  if (bound === 'maxTasks') return new BoundReached(bound, principal, `Too many tasks: the server may keep at most ${max} tasks (tasks.maxTasks)`, ErrorCode.InternalError);
  return new BoundReached(bound, principal, `Too many tasks: one client may keep at most ${max} tasks, finished ones included until they expire (tasks.maxPerPrincipal)`);
}

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
  /** The server log (`onError`); set by the server once it is built. */
  report: (error: unknown) => void = () => {};
  /** Fires at the soonest expiry among the running tasks (`#expiryAt`). */
  #expiry: ReturnType<typeof setTimeout> | undefined;
  #expiryAt = Infinity;

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
    if (task.expiresAt < this.#expiryAt) this.#expireAt(task.expiresAt);
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
      this.#expireAt(Infinity);
    }
  }

  /** Sets the one expiry timer for `at` (Infinity: none). */
  #expireAt(at: number): void {
    clearTimeout(this.#expiry);
    this.#expiryAt = at;
    this.#expiry = undefined;
    if (at === Infinity) return;
    // setTimeout takes at most 2^31-1 ms; a later expiry is reached by a second timer.
    this.#expiry = setTimeout(() => this.#expireDue(), Math.min(Math.max(0, at - Date.now()), 2_147_483_647));
    this.#expiry.unref?.();
  }

  /** Stops the handlers whose TTL passed, then waits for the next soonest expiry. */
  #expireDue(): void {
    const now = Date.now();
    let next = Infinity;
    for (const task of [...this.#running]) {
      if (task.expiresAt <= now) task.expire();
      else next = Math.min(next, task.expiresAt);
    }
    this.#expireAt(this.#running.size === 0 ? Infinity : next);
  }

  /** A task's result was not kept (a byte bound): logged once per principal and bound. */
  resultRefused(bound: keyof TaskBounds, principal: string): void {
    const { message } = tooLarge(bound, this.settings[bound as keyof TaskSettings] as number).error!;
    const error = new BoundReached(bound, principal, message, ErrorCode.InternalError);
    if (firstTimeReached(this, error)) this.report(error);
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
