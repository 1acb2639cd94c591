/**
 * Which `tools/call` of a task tool becomes a task, and with which TTL: the tasks tenant's one say
 * in a call. The method table (src/methods/built-ins.ts) asks before it runs the tool; a call that
 * becomes one gets a TaskHandOff through the request's seam (`MethodCall.outlive`, request/hand-off.ts).
 */
import type { Core, MethodCall } from '../request/core.js';
import { ErrorCode, McpError, invalidParams } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import { TaskHandOff } from './hand-off.js';
import { declaresTasks, missingTasksExtension } from './methods.js';
import { TaskRun } from './task-run.js';
import type { TaskSupport } from '../primitives/tools.js';

/** What the planner reads of a tool (primitives/tools.ts). */
interface TaskTool {
  readonly task: TaskSupport;
  /** A task only once the handler calls `ctx.task()`, never merely because it waits (the gateway's upstream tasks). */
  readonly taskOnRequest?: boolean;
}

/**
 * Makes this call of a task tool a task when the client takes it as one. 2025: stored before the
 * handler runs, so even its first elicit waits in the task; 2026: once the handler waits (see
 * TaskHandOff.takes). The per-principal cap is counted by the store as it writes the task (one step,
 * so across instances too): planning happens now, before the handler's first await, with no read first.
 */
export function planTask(core: Core<unknown>, call: MethodCall<unknown>, tool: TaskTool, name: string): void {
  const ttlMs = taskTtl(core, call, tool.task, name);
  if (ttlMs === undefined) return;
  const { principal, ctx } = call;
  const version = ctx.protocolVersion || 'unknown';
  call.outlive((host) => new TaskHandOff(new TaskRun(core.tasks, host, principal, version, ttlMs, ctx.client.capabilities), host, tool.taskOnRequest === true), call.revision.tasksStartAtOnce);
}

/**
 * The TTL of the task this call becomes (undefined: a plain call). Without sessions, each request carries its own
 * client facts (2026): when it declares the tasks extension (a `required` tool refuses others, -32021;
 * the legacy `task` param is ignored). Otherwise (2025): when the client sent `task` (a `required`
 * tool refuses a call without it, -32601: see docs/tasks.md for why that code).
 */
function taskTtl(core: Core<unknown>, call: MethodCall<unknown>, support: TaskSupport, name: string): number | undefined {
  const { defaultTtlMs, maxTtlMs, minTtlMs } = core.tasks.settings;
  if (!call.revision.sessions) {
    if (declaresTasks(call)) return defaultTtlMs;
    if (support === 'required') throw missingTasksExtension(`Tool '${name}'`);
    return undefined;
  }
  const task = call.params.task;
  if (task === undefined) {
    if (support === 'required') throw new McpError(ErrorCode.MethodNotFound, `Tool '${name}' must be called as a task (params.task)`);
    return undefined;
  }
  if (!isObject(task)) throw invalidParams('params.task must be an object');
  const ttl = task.ttl;
  if (ttl === undefined || ttl === null) return defaultTtlMs;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1) throw invalidParams('params.task.ttl must be a positive integer (ms)');
  return Math.max(minTtlMs, Math.min(ttl, maxTtlMs)); // the server's floor and ceiling (the task reports the TTL it got)
}
