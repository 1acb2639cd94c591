/**
 * The `tasks/*` methods of both eras. 2026 (tasks extension): `tasks/get` (DetailedTask),
 * `tasks/update` and `tasks/cancel` (empty acks), only for requests that declare the extension;
 * `tasks/result` and `tasks/list` do not exist there (-32601). 2025 (SEP-1686): `tasks/get`,
 * `tasks/result` (waits until the task is terminal), `tasks/list` and `tasks/cancel`.
 * Every read is by principal: another principal's task is an unknown id (-32602).
 */
import type { Core, MethodCall, MethodSpec } from '../request/core.js';
import type { Send } from '../transport.js';
import { ErrorCode, McpError, ProtocolError, invalidParams } from '../protocol/errors.js';
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { isTerminal, type TaskRecord } from '../state/task-store.js';
import { ResultStream } from './result-stream.js';
import { after } from './service.js';
import { RELATED_TASK, TASKS_EXTENSION, detailedTask, handshakeTask } from '../protocol/task-wire.js';

type TaskCall = MethodCall<unknown> & { readonly principal: string };

/** Whether a 2026 request declared the tasks extension in its own capabilities. */
export function declaresTasks(call: MethodCall<unknown>): boolean {
  const extensions = call.ctx.client.capabilities.extensions as JsonObject | undefined;
  return isObject(extensions) && extensions[TASKS_EXTENSION] !== undefined;
}

export const missingTasksExtension = (what: string): ProtocolError =>
  new ProtocolError(
    ErrorCode.MissingRequiredClientCapability,
    `${what} needs the client extension ${TASKS_EXTENSION}`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    400,
  );

const unknownTask = (taskId: string): McpError => invalidParams(`Unknown task: '${taskId}'`);

/** The task id, checked; 2026 requests must also have declared the extension. */
function taskIdOf(call: MethodCall<unknown>): string {
  if (!call.revision.sessions && !declaresTasks(call)) throw missingTasksExtension(call.method);
  const taskId = call.params.taskId;
  if (typeof taskId !== 'string' || taskId === '') throw invalidParams('params.taskId must be a non-empty string');
  return taskId;
}

function found(task: TaskRecord | undefined, taskId: string): TaskRecord {
  if (!task) throw unknownTask(taskId);
  return task;
}

function getTask(core: Core<unknown>, call: MethodCall<unknown>): JsonObject | Promise<JsonObject> {
  const taskId = taskIdOf(call);
  return after(core.tasks.store.get(taskId, (call as TaskCall).principal), (task) => {
    const record = found(task, taskId);
    return call.revision.task(record);
  });
}

/** 2026: answers to the task's outstanding input requests; keys it is not waiting on are ignored. */
function updateTask(core: Core<unknown>, call: MethodCall<unknown>): JsonObject | Promise<JsonObject> {
  const taskId = taskIdOf(call);
  const responses = call.params.inputResponses;
  if (!isObject(responses)) throw invalidParams('params.inputResponses must be an object');
  const store = core.tasks.store;
  const principal = (call as TaskCall).principal;
  return after(store.get(taskId, principal), (task) => {
    found(task, taskId);
    return after(store.answer(taskId, principal, responses as JsonObject), () => ({}));
  });
}

/** The answer's shape is the revision's (Revision.taskCancelled). */
function cancelTask(core: Core<unknown>, call: MethodCall<unknown>): JsonObject | Promise<JsonObject> {
  const taskId = taskIdOf(call);
  return after(core.tasks.store.cancel(taskId, (call as TaskCall).principal, 'The task was cancelled by the client.'), (outcome) => {
    if (outcome.outcome === 'unknown') throw unknownTask(taskId);
    return call.revision.taskCancelled(outcome.task, outcome.outcome === 'terminal');
  });
}

function listTasks(core: Core<unknown>, call: MethodCall<unknown>): JsonObject | Promise<JsonObject> {
  const cursor = call.params.cursor;
  if (cursor !== undefined && typeof cursor !== 'string') throw invalidParams('params.cursor must be a string');
  return after(core.tasks.store.list((call as TaskCall).principal, cursor, core.settings.pageSize), (page) => {
    if (!page) throw invalidParams('Invalid cursor');
    const out: JsonObject = { tasks: page.tasks.map(handshakeTask) };
    if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
    return out;
  });
}

/**
 * 2025: waits until the task is terminal, then answers exactly what the tool call would have. With a
 * stream back to the client it also carries the task's questions, status changes and messages (result-stream.ts).
 */
async function taskResult(core: Core<unknown>, call: MethodCall<unknown>): Promise<JsonObject> {
  const taskId = taskIdOf(call);
  const store = core.tasks.store;
  const principal = (call as TaskCall).principal;
  const signal = call.ctx.signal;
  let task = found(await store.get(taskId, principal), taskId);
  if (isTerminal(task.status)) return finalResult(task, taskId);
  // A wait is a long-lived stream: it takes a place in the same quota as listen and GET streams.
  const held = core.streams.hold(principal);
  if (typeof held !== 'function') throw held;
  const stream = call.send ? new ResultStream(core, call, call.send, task) : undefined;
  try {
    while (!isTerminal(task.status)) {
      // Woken by a write to the task (any instance, when the store publishes) or, at the latest, after one poll interval.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(wake, core.tasks.settings.pollIntervalMs);
        const unwatch = store.watch(taskId, wake);
        signal.addEventListener('abort', wake);
        function wake(): void {
          clearTimeout(timer);
          unwatch();
          signal.removeEventListener('abort', wake);
          resolve();
        }
      });
      if (signal.aborted) throw new McpError(ErrorCode.InternalError, 'Request cancelled');
      task = found(await store.get(taskId, principal), taskId);
      stream?.seen(task);
    }
  } finally {
    stream?.close();
    held();
  }
  return finalResult(task, taskId);
}

/** What the tool call would have answered: its result (with the related-task `_meta`), or its error. */
function finalResult(task: TaskRecord, taskId: string): JsonObject {
  const related = { [RELATED_TASK]: { taskId } };
  if (task.error) throw new McpError(task.error.code, task.error.message, task.error.data);
  if (task.status === 'cancelled' && !task.result) throw new McpError(ErrorCode.InvalidParams, `Task '${taskId}' was cancelled`);
  const result = task.result ?? {};
  return { ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), ...related } };
}

const servesTasks = (core: Core<unknown>): boolean => core.tools.servesTasks();

/** Rows of the method table (methods/built-ins.ts spreads them in; its MethodSpec type checks them there). */
export const TASK_METHODS: (readonly [string, MethodSpec])[] = [
  ['tasks/get', { eras: 'both', enabled: servesTasks, run: getTask }],
  ['tasks/cancel', { eras: 'both', enabled: servesTasks, run: cancelTask }],
  ['tasks/update', { eras: 'stateless', enabled: servesTasks, run: updateTask }],
  ['tasks/list', { eras: 'handshake', enabled: servesTasks, run: listTasks }],
  // Waits without a slot or an idle clock (like a listen stream): the task holds no request slot either.
  ['tasks/result', { eras: 'handshake', enabled: servesTasks, stream: true, run: taskResult }],
];

/**
 * 2026 `subscriptions/listen` with `taskIds`: a `notifications/tasks` (the DetailedTask) on every
 * change of each of the caller's own tasks; ids of other principals' tasks are silently ignored.
 * Each watch starts before the read that checks the id, so a change meanwhile is not lost; until that
 * read answers, the record's own principal decides. Returns the unsubscribe.
 */
export function watchTasks(core: Core<unknown>, call: MethodCall<unknown>, taskIds: readonly string[], send: Send, tag: JsonObject): () => void {
  const store = core.tasks.store;
  const principal = (call as TaskCall).principal;
  const onChange = (changed: TaskRecord) => {
    if (changed.principal === principal) send({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...detailedTask(changed), _meta: tag } });
  };
  const stops: (() => void)[] = [];
  for (const taskId of taskIds) {
    const stop = store.watch(taskId, onChange);
    stops.push(stop);
    // An unknown id (or another principal's) keeps no watch: only the caller's own tasks cost memory.
    void Promise.resolve(store.get(taskId, principal)).then((task) => task || stop(), stop);
  }
  return () => {
    for (const stop of stops) stop();
  };
}
