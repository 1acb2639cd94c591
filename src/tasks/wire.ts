/**
 * How a stored task reads on the wire, per era. 2025-11-25 (SEP-1686) nests it under `task` with
 * `ttl`/`pollInterval`; 2026-07-28 (the tasks extension, SEP-2663) is flat with `ttlMs`/`pollIntervalMs`
 * and inlines the input requests, the result or the error on `tasks/get`.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { TaskRecord } from '../state/task-store.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A task's wire fields; the eras differ only in two names (2025 `ttl`/`pollInterval`, 2026 with `Ms`). */
function taskFields(task: TaskRecord, ttl: 'ttl' | 'ttlMs', poll: 'pollInterval' | 'pollIntervalMs'): JsonObject {
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
export const handshakeTask = (task: TaskRecord): JsonObject => taskFields(task, 'ttl', 'pollInterval');

/** The 2026 task fields shared by CreateTaskResult and DetailedTask. */
const statelessTask = (task: TaskRecord): JsonObject => taskFields(task, 'ttlMs', 'pollIntervalMs');

/** 2026 `tools/call` answer when the call became a task. */
export const createTaskResult = (task: TaskRecord): JsonObject => ({ resultType: 'task', ...statelessTask(task) });

/** 2026 `tasks/get` answer (and `notifications/tasks` params): what the task waits on or ended with. */
export function detailedTask(task: TaskRecord): JsonObject {
  const out: JsonObject = { ...statelessTask(task) };
  if (task.status === 'input_required' && task.inputRequests) out.inputRequests = task.inputRequests;
  if (task.status === 'completed' && task.result) out.result = task.result;
  if (task.status === 'failed' && task.error) out.error = task.error;
  return out;
}
