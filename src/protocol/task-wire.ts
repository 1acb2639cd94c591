/**
 * How a stored task reads on the wire, per era. 2025-11-25 (SEP-1686) nests it under `task` with
 * `ttl`/`pollInterval`; 2026-07-28 (the tasks extension, SEP-2663) is flat with `ttlMs`/`pollIntervalMs`
 * and inlines the input requests, the result or the error on `tasks/get`.
 */
import type { JsonObject } from './jsonrpc.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';


export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A JSON-RPC error as the task ended with it (no stack, no cause: it goes on the wire). */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** One server-to-client request the task waits on: `elicitation/create`, `sampling/createMessage` or `roots/list`. */
export interface TaskInputRequest {
  method: string;
  params?: JsonObject;
}

/** What of a task goes on the wire, in either era (the stored record, state/task-store.ts, adds who owns it and until when). */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  lastUpdatedAt: string;
  /** How long the record lives after creation; null means the server's maximum. */
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** Outstanding input requests by key, while `input_required`. */
  inputRequests?: Record<string, TaskInputRequest>;
  /** The tool's result once `completed` (2025: also `failed` for an isError result). */
  result?: JsonObject;
  /** The JSON-RPC error once `failed` by a protocol error. */
  error?: TaskError;
}

/** A task's wire fields; the eras differ only in two names (2025 `ttl`/`pollInterval`, 2026 with `Ms`). */
function taskFields(task: TaskView, ttl: 'ttl' | 'ttlMs', poll: 'pollInterval' | 'pollIntervalMs'): JsonObject {
  const out: JsonObject = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    [ttl]: task.ttlMs,
  };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) out[poll] = task.pollIntervalMs;
  return out;
}

/** The 2025 `Task` object. */
export const handshakeTask = (task: TaskView): JsonObject => taskFields(task, 'ttl', 'pollInterval');

/** The 2026 task fields shared by CreateTaskResult and DetailedTask. */
const statelessTask = (task: TaskView): JsonObject => taskFields(task, 'ttlMs', 'pollIntervalMs');

/** 2026 `tools/call` answer when the call became a task. */
export const createTaskResult = (task: TaskView): JsonObject => ({ resultType: 'task', ...statelessTask(task) });

/** 2026 `tasks/get` answer (and `notifications/tasks` params): what the task waits on or ended with. */
export function detailedTask(task: TaskView): JsonObject {
  const out: JsonObject = { ...statelessTask(task) };
  if (task.status === 'input_required' && task.inputRequests) out.inputRequests = task.inputRequests;
  if (task.status === 'completed' && task.result) out.result = task.result;
  if (task.status === 'failed' && task.error) out.error = task.error;
  return out;
}
