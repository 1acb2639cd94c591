/**
 * The in-memory task store: one process, no promise, no timer. Expired records are swept lazily (at
 * most once a second, on any call), so an idle server holds nothing but what it already had. Each
 * principal's tasks are indexed (creation order), so its calls never scan everyone's; what each
 * principal and the process keep is counted for the TaskBounds.
 */
import {
  sizeBoundPassed,
  endSize,
  isTerminal,
  tooLarge,
  type TaskBounds,
  type CancelOutcome,
  type TaskEnd,
  type TaskInputRequest,
  type TaskPage,
  type TaskRecord,
  type TaskStore,
} from './task-store.js';
import { addToKeyedSet } from './keyed-sets.js';
import { BoundsLedger } from './ledger.js';

const SWEEP_EVERY_MS = 1000;

/** A principal's tasks in creation order. */
interface Holder {
  readonly tasks: Map<string, TaskRecord>;
}

export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #holders = new Map<string, Holder>();
  /** What each terminal task keeps (endSize), by id. */
  readonly #sizes = new Map<string, number>();
  /** Tasks and the characters their results and errors keep, per principal (anonymous is one) and in all. */
  readonly #stored = new BoundsLedger(true);
  readonly #watchers = new Map<string, Set<(task: TaskRecord) => void>>();
  readonly #leases = new Map<string, number>();
  #nextSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  create(task: TaskRecord, bounds: number | Partial<TaskBounds> = {}): boolean | 'maxTasks' {
    this.#sweep();
    const { maxPerPrincipal, maxTasks } = typeof bounds === 'number' ? { maxPerPrincipal: bounds, maxTasks: undefined } : bounds;
    const holder = this.#holder(task.principal);
    if (maxPerPrincipal !== undefined && this.#kept(holder) >= maxPerPrincipal) return false;
    if (maxTasks !== undefined && this.#tasks.size >= maxTasks) return 'maxTasks';
    const copy = structuredClone(task);
    this.#tasks.set(task.taskId, copy);
    holder.tasks.set(task.taskId, copy);
    this.#stored.add(task.principal, 1, 0);
    return true;
  }

  get(taskId: string, principal: string): TaskRecord | undefined {
    const task = this.#live(taskId, principal);
    return task && structuredClone(task);
  }

  list(principal: string, cursor?: string, limit = 50): TaskPage | undefined {
    this.#sweep();
    const mine = [...(this.#holders.get(principal)?.tasks.values() ?? [])].filter((t) => !this.#expired(t));
    let start = 0;
    if (cursor !== undefined) {
      start = mine.findIndex((t) => t.taskId === cursor) + 1;
      if (start === 0) return undefined;
    }
    const page = mine.slice(start, start + limit).map((t) => structuredClone(this.#checkOwner(t)));
    const last = page.at(-1);
    return start + limit < mine.length && last ? { tasks: page, nextCursor: last.taskId } : { tasks: page };
  }

  live(principal: string): number {
    this.#sweep();
    let count = 0;
    for (const task of this.#holders.get(principal)?.tasks.values() ?? []) if (!this.#expired(task) && !isTerminal(this.#checkOwner(task).status)) count++;
    return count;
  }

  /** The principal's tasks not yet expired (finished ones too): what counts against its cap. */
  #kept(holder: Holder): number {
    let count = 0;
    for (const task of holder.tasks.values()) if (!this.#expired(task)) count++;
    return count;
  }

  #holder(principal: string): Holder {
    let holder = this.#holders.get(principal);
    if (holder === undefined) this.#holders.set(principal, (holder = { tasks: new Map() }));
    return holder;
  }

  note(taskId: string, statusMessage: string): void {
    this.#write(taskId, (task) => (isTerminal(task.status) ? false : ((task.statusMessage = statusMessage), true)));
  }

  ask(taskId: string, requests: Record<string, TaskInputRequest>): void {
    this.#write(taskId, (task) => {
      if (isTerminal(task.status)) return false;
      task.inputRequests = { ...task.inputRequests, ...requests };
      task.status = 'input_required';
      return true;
    });
  }

  take(taskId: string, key: string): { value: unknown } | undefined {
    const responses = this.#tasks.get(taskId)?.inputResponses;
    if (!responses || !Object.hasOwn(responses, key)) return undefined;
    const value = responses[key];
    delete responses[key];
    return { value };
  }

  answer(taskId: string, principal: string, responses: Record<string, unknown>): boolean {
    if (!this.#live(taskId, principal)) return false;
    return this.#write(taskId, (task) => {
      if (isTerminal(task.status)) return false;
      const outstanding = task.inputRequests ?? {};
      for (const [key, value] of Object.entries(responses)) {
        if (!Object.hasOwn(outstanding, key)) continue; // asked keys only, never inherited names
        delete outstanding[key];
        // defineProperty: a key named "__proto__" is data, never the record's prototype.
        Object.defineProperty((task.inputResponses ??= {}), key, { value: structuredClone(value), enumerable: true, writable: true, configurable: true });
      }
      if (Object.keys(outstanding).length === 0) {
        delete task.inputRequests;
        task.status = 'working';
      }
      return true;
    });
  }

  settle(taskId: string, end: TaskEnd, bounds: Partial<TaskBounds> = {}): boolean | keyof TaskBounds {
    let passed: keyof TaskBounds | undefined;
    const written = this.#write(taskId, (task) => {
      if (isTerminal(task.status)) return false;
      const stored = this.#stored;
      let size = endSize(end);
      passed = sizeBoundPassed(bounds, size, stored.of(task.principal).size, stored.total.size);
      if (passed !== undefined) size = endSize((end = tooLarge(passed, bounds[passed]!)));
      this.#sizes.set(taskId, size);
      stored.add(task.principal, 0, size);
      Object.assign(task, structuredClone(end));
      delete task.inputRequests;
      delete task.inputResponses;
      return true;
    });
    return written && (passed ?? true);
  }

  cancel(taskId: string, principal: string, reason = 'The task was cancelled.'): CancelOutcome {
    const found = this.#live(taskId, principal);
    if (!found) return { outcome: 'unknown' };
    if (isTerminal(found.status)) return { outcome: 'terminal', task: structuredClone(found) };
    this.#write(taskId, (task) => {
      task.cancelRequested = true;
      task.status = 'cancelled';
      task.statusMessage = reason;
      delete task.inputRequests;
      delete task.inputResponses;
      return true;
    });
    return { outcome: 'cancelled', task: structuredClone(found) };
  }

  beat(owner: string, untilMs: number): void {
    this.#leases.set(owner, untilMs);
  }

  watch(taskId: string, on: (task: TaskRecord) => void): () => void {
    return addToKeyedSet(this.#watchers, taskId, on);
  }

  /** Applies `change` and tells the watchers; false (and no write) when `change` declines. */
  #write(taskId: string, change: (task: TaskRecord) => boolean): boolean {
    const task = this.#tasks.get(taskId);
    if (!task || this.#expired(task) || !change(task)) return false;
    task.lastUpdatedAt = new Date(this.now()).toISOString();
    const watchers = this.#watchers.get(taskId);
    if (watchers) for (const on of [...watchers]) on(structuredClone(task));
    return true;
  }

  #live(taskId: string, principal: string): TaskRecord | undefined {
    this.#sweep();
    const task = this.#tasks.get(taskId);
    if (!task || task.principal !== principal || this.#expired(task)) return undefined;
    return this.#checkOwner(task);
  }

  /** A task whose owner stopped beating can never finish: it fails rather than stay `working`. */
  #checkOwner(task: TaskRecord): TaskRecord {
    const lease = this.#leases.get(task.owner);
    if (!isTerminal(task.status) && lease !== undefined && lease < this.now()) {
      this.settle(task.taskId, {
        status: 'failed',
        statusMessage: 'The task was lost: the server instance running it stopped.',
        error: { code: -32603, message: 'The task was lost: the server instance running it stopped.' },
      });
    }
    return task;
  }

  #expired(task: TaskRecord): boolean {
    return task.expiresAt <= this.now();
  }

  #sweep(): void {
    const now = this.now();
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + SWEEP_EVERY_MS;
    for (const task of this.#tasks.values()) if (this.#expired(task)) this.#forget(task);
  }

  #forget(task: TaskRecord): void {
    const holder = this.#holders.get(task.principal)!;
    this.#stored.add(task.principal, -1, -(this.#sizes.get(task.taskId) ?? 0));
    this.#sizes.delete(task.taskId);
    this.#tasks.delete(task.taskId);
    holder.tasks.delete(task.taskId);
    if (holder.tasks.size === 0) this.#holders.delete(task.principal);
  }
}
