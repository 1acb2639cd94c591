/**
 * Where tasks live: a record per task that outlives the request that created it (and, with a shared
 * store, the instance that ran it). The running handler stays in the instance that started it; the
 * store holds only plain JSON records, so a Redis (or any other) implementation can hold them too.
 *
 * Every method may answer a value or a promise: the in-memory default never makes a promise, so one
 * process pays nothing for the seam.
 */
import type { JsonObject, JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { MaybePromise } from '../protocol/mcp-types.js';
import type { TaskError, TaskInputRequest, TaskStatus, TaskView } from '../protocol/task-wire.js';


export type { TaskError, TaskInputRequest, TaskStatus } from '../protocol/task-wire.js';

export const isTerminal = (status: TaskStatus): boolean =>
  status === 'completed' || status === 'failed' || status === 'cancelled';

/** The stored task: JSON only (no functions, no Dates), so any store can serialise it as is. */
export interface TaskRecord extends TaskView {
  /** 128 random bits; never reused. */
  taskId: string;
  /** Who created it ('' is anonymous). Every read and write by a client is checked against it. */
  principal: string;
  /** The protocol revision it was created under ('2025-11-25' or '2026-07-28'): shapes what is read back. */
  protocolVersion: string;
  /** Epoch ms after which the record is gone (createdAt + ttl, capped by the server). */
  expiresAt: number;
  /** The instance running the handler (see `beat`). */
  owner: string;
  /** Answers received by key and not yet taken by the handler. */
  inputResponses?: Record<string, unknown>;
  /** A client asked to cancel it; the owner aborts the handler when it sees this. */
  cancelRequested?: boolean;
}

/** How a task ends: its terminal status and what it ended with. */
export interface TaskEnd {
  status: 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  result?: JsonObject;
  error?: TaskError;
}

/**
 * What a store may keep of tasks, per principal and in all (the task settings of the same names).
 * Sizes are the characters of a task's result or error as JSON.
 */
export interface TaskBounds {
  /** Tasks one principal keeps, finished ones included until they expire. */
  maxPerPrincipal: number;
  /** Tasks kept, all principals. */
  maxTasks: number;
  /** The result (or error) of one task. */
  maxResultChars: number;
  /** Results and errors of one principal's tasks. */
  maxStoredCharsPerPrincipal: number;
  /** Results and errors of all tasks. */
  maxStoredChars: number;
}

/** The characters a terminal task keeps: its result or error as JSON. */
export const endSize = (end: TaskEnd): number =>
  (end.result === undefined ? 0 : JSON.stringify(end.result).length) + (end.error === undefined ? 0 : JSON.stringify(end.error).length);

/** The failure a task ends with instead of a result past a byte bound (the stored error names the bound). */
export function tooLarge(bound: keyof TaskBounds, max: number): TaskEnd {
  const message = `The task's result was not kept: it passes the bound of ${max} characters (tasks.${bound})`;
  return { status: 'failed', statusMessage: message, error: { code: -32603, message, data: { bound } } };
}

/** The first byte bound `size` more characters would pass, given what the principal and the store keep. */
export function sizeBoundPassed(bounds: Partial<TaskBounds>, size: number, principalBytes: number, totalBytes: number): keyof TaskBounds | undefined {
  if (bounds.maxResultChars !== undefined && size > bounds.maxResultChars) return 'maxResultChars';
  if (bounds.maxStoredCharsPerPrincipal !== undefined && principalBytes + size > bounds.maxStoredCharsPerPrincipal) return 'maxStoredCharsPerPrincipal';
  if (bounds.maxStoredChars !== undefined && totalBytes + size > bounds.maxStoredChars) return 'maxStoredChars';
  return undefined;
}

export interface TaskPage {
  tasks: TaskRecord[];
  nextCursor?: string;
}

/**
 * The seam. Reads and client writes take the principal: another principal's task is unknown
 * (undefined / false), never "forbidden", so ids cannot be probed. Status moves are compare-and-set:
 * a terminal task never changes again.
 */
export interface TaskStore {
  /**
   * Stores a new task; durable before the creation result is sent. With bounds (a number is
   * `maxPerPrincipal`): false (and nothing stored) when the principal already keeps that many tasks,
   * finished ones included until they expire; 'maxTasks' when the store keeps that many in all. The
   * count and the write are one step, so the caps hold across instances.
   */
  create(task: TaskRecord, bounds?: number | Partial<TaskBounds>): MaybePromise<boolean | 'maxTasks'>;
  /** The task, or undefined when unknown, expired or another principal's. A task whose owner went silent reads as failed. */
  get(taskId: string, principal: string): MaybePromise<TaskRecord | undefined>;
  /** The principal's tasks in creation order; `cursor` is opaque (from a previous page); undefined for a bad cursor. */
  list(principal: string, cursor?: string, limit?: number): MaybePromise<TaskPage | undefined>;
  /** How many non-terminal tasks the principal has (for the per-principal cap). */
  live(principal: string): MaybePromise<number>;
  /** Owner side: progress and logs as a status message, while not terminal. */
  note(taskId: string, statusMessage: string): MaybePromise<void>;
  /** Owner side: the handler waits on these requests; the task becomes `input_required`. */
  ask(taskId: string, requests: Record<string, TaskInputRequest>): MaybePromise<void>;
  /** Owner side: takes (and removes) the answer to `key` if one has arrived. */
  take(taskId: string, key: string): MaybePromise<{ value: unknown } | undefined>;
  /**
   * Client side: answers to outstanding keys only (others are ignored); back to `working` when none is
   * left. False when the task is unknown to this principal or terminal.
   */
  answer(taskId: string, principal: string, responses: Record<string, unknown>): MaybePromise<boolean>;
  /**
   * Owner side: the terminal status, only from a non-terminal one. False when it was already terminal.
   * An end whose result or error passes a byte bound is kept as a failure naming the bound (`tooLarge`),
   * and the answer is that bound's name.
   */
  settle(taskId: string, end: TaskEnd, bounds?: Partial<TaskBounds>): MaybePromise<boolean | keyof TaskBounds>;
  /**
   * Client side: marks the task cancelled (compare-and-set) and tells its owner to abort the handler.
   * 'unknown' when not this principal's, 'terminal' (with the record) when it had already ended.
   */
  cancel(taskId: string, principal: string, reason?: string): MaybePromise<CancelOutcome>;
  /** The owner is alive until `untilMs`: one write per tick for all its tasks. */
  beat(owner: string, untilMs: number): MaybePromise<void>;
  /** Every write to the task, on any instance; returns the unsubscribe. Waiters also re-read on a timer. */
  watch(taskId: string, on: (task: TaskRecord) => void): () => void;
  /**
   * Optional, for a store shared by instances: carries a running task's notifications (progress,
   * logs) to the `tasks/result` streams open on every instance, in order with the task's own writes.
   * Without it they reach only the streams of the instance that runs the task.
   */
  readonly messages?: TaskMessages;
}

/** A task's notifications between instances: `publish` on the one running it, `listen` wherever a stream waits. */
export interface TaskMessages {
  publish(taskId: string, message: JsonRpcMessage): void;
  /** Returns the unsubscribe. */
  listen(taskId: string, on: (message: JsonRpcMessage) => void): () => void;
}

export type CancelOutcome =
  | { outcome: 'cancelled'; task: TaskRecord }
  | { outcome: 'terminal'; task: TaskRecord }
  | { outcome: 'unknown' };
