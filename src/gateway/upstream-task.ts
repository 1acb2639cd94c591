/**
 * A 2026 upstream that answers a call with a task (`resultType: "task"`, tasks extension): the gateway
 * follows it to its end, so the caller's request (a task of the gateway when the caller takes tasks)
 * ends as the upstream's does. Its `input_required` questions are asked of the caller under the
 * upstream's keys and each answer goes back with `tasks/update` as it comes (a caller answering one
 * key of two leaves the other outstanding); `completed` is its result (a tool error stays `isError`),
 * `failed` its error; a cancelled caller cancels the upstream task.
 */
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { type CallHooks, type UpstreamAsk, UpstreamError, UpstreamUnavailable } from './types.js';

/** Sends one request of the given method to the upstream (with the caller's `_meta`); `detached`: not tied to the caller's signal. */
export type UpstreamSend = (method: string, params: JsonObject, detached?: boolean) => Promise<JsonObject>;

const DEFAULT_POLL_MS = 1_000;
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 5_000;

function pollMs(created: JsonObject): number {
  const hint = created.pollIntervalMs;
  return typeof hint === 'number' && Number.isFinite(hint) ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, hint)) : DEFAULT_POLL_MS;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}

/** What a terminal upstream task means for the caller: its result, or its error. */
function outcome(name: string, task: JsonObject): JsonObject {
  if (task.status === 'completed') return isObject(task.result) ? task.result : {};
  if (task.status === 'failed' && isObject(task.error) && typeof task.error.code === 'number') {
    throw new UpstreamError(task.error.code, String(task.error.message ?? 'Upstream task failed'), task.error.data);
  }
  throw new UpstreamUnavailable(`Upstream ${name} task ended ${String(task.status)}`);
}

/** Asks the caller each question not yet asked; every answer goes to the upstream task at once. */
function askNew(task: JsonObject, taskId: string, hooks: CallHooks, send: UpstreamSend, asked: Set<string>, failures: unknown[]): void {
  const requests = isObject(task.inputRequests) ? task.inputRequests : {};
  for (const [key, request] of Object.entries(requests)) {
    if (asked.has(key) || !isObject(request)) continue;
    asked.add(key);
    const params = isObject(request.params) ? request.params : {};
    hooks.ask!(request.method as UpstreamAsk, params, key)
      .then((answer) => send('tasks/update', { taskId, inputResponses: { [key]: answer } }))
      .catch((error: unknown) => failures.push(error));
  }
}

/** Follows an upstream task from its creation result to its end. */
export async function followTask(name: string, created: JsonObject, hooks: CallHooks, send: UpstreamSend): Promise<JsonObject> {
  const taskId = created.taskId;
  if (typeof taskId !== 'string') throw new UpstreamUnavailable(`Upstream ${name} created a task without a taskId`);
  const interval = pollMs(created);
  const asked = new Set<string>();
  const failures: unknown[] = [];
  let task = created;
  for (;;) {
    if (hooks.signal?.aborted) {
      await send('tasks/cancel', { taskId }, true).catch(() => {});
      hooks.signal.throwIfAborted();
    }
    if (failures.length > 0) throw failures[0];
    if (task.status === 'input_required') {
      if (hooks.ask === undefined) throw new UpstreamUnavailable(`Upstream ${name} asked for input the gateway cannot pass on`);
      askNew(task, taskId, hooks, send, asked, failures);
    } else if (task.status !== 'working') {
      return outcome(name, task);
    }
    await sleep(interval, hooks.signal);
    try {
      task = await send('tasks/get', { taskId });
    } catch (error) {
      if (!hooks.signal?.aborted) throw error; // cancelled while asking: the top of the loop cancels upstream
    }
  }
}
