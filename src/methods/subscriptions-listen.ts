/**
 * 2026 `subscriptions/listen`: a stream that acknowledges the filter the server can honour, then
 * carries the list changes, resource updates and task notifications it asked for (each tagged with
 * the subscription id) until the client goes away. Its params are capped, and it takes a place in the
 * principal's stream quota (shared with 2025 GET streams and `tasks/result` waits).
 */
import type { Core, MethodCall } from '../request/core.js';
import type { Send } from '../transport.js';
import { internalError, invalidParams } from '../protocol/errors.js';
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { META } from '../protocol/versions.js';
import { ListView } from '../primitives/visibility.js';
import { taggedNotification, type BusEvent } from '../state/bus.js';
import { declaresTasks, watchTasks } from '../tasks/methods.js';

/** What a listen stream keeps for its life: the flags and a set of URIs, never the client's params. */
interface ListenFilter {
  toolsListChanged: boolean;
  promptsListChanged: boolean;
  resourcesListChanged: boolean;
  /** The Events extension's types (SEP-3415): honoured where the server serves events. */
  eventsListChanged: boolean;
  uris: Set<string> | undefined;
  /** Tasks extension: the caller's tasks to report on (notifications/tasks). */
  taskIds: string[] | undefined;
}

/**
 * A listen request lives as long as its stream, and so does everything it carried: its params are
 * capped (about their JSON size), not just the body, and so is the number of URIs it may watch.
 */
export const MAX_LISTEN_URIS = 1_000;
export const MAX_LISTEN_PARAMS_CHARS = 128 * 1024;

/** Whether a parsed JSON value is at most about `limit` characters of JSON; stops counting past it. */
function jsonWithin(value: unknown, limit: number): boolean {
  const pending: unknown[] = [value];
  let size = 0;
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') size += item.length + 2;
    else if (Array.isArray(item)) {
      size += item.length + 2;
      for (const v of item) pending.push(v);
    } else if (typeof item === 'object' && item !== null) {
      for (const key of Object.keys(item)) {
        size += key.length + 4;
        pending.push((item as JsonObject)[key]);
      }
    } else size += 5;
    if (size > limit) return false;
  }
  return true;
}

/** Which bus events a `subscriptions/listen` filter asked for (only what we can honour); -32602 past the caps. */
function honoured(filter: JsonObject, call: MethodCall<unknown>, servesTasks: boolean, servesEvents: boolean): ListenFilter {
  const chosen: ListenFilter = {
    toolsListChanged: filter.toolsListChanged === true,
    promptsListChanged: filter.promptsListChanged === true,
    resourcesListChanged: filter.resourcesListChanged === true,
    eventsListChanged: filter.eventsListChanged === true && servesEvents,
    uris: undefined,
    taskIds: undefined,
  };
  const taskIds = filter.taskIds;
  // A server with no task tool has no task to report on: its ids would only cost store reads.
  if (servesTasks && Array.isArray(taskIds) && taskIds.every((t) => typeof t === 'string') && declaresTasks(call)) {
    if (taskIds.length > MAX_LISTEN_URIS) throw invalidParams(`taskIds holds more than ${MAX_LISTEN_URIS} ids`);
    chosen.taskIds = [...new Set(taskIds as string[])];
  }
  const list = filter.resourceSubscriptions;
  if (!Array.isArray(list) || !list.every((u) => typeof u === 'string')) return chosen;
  if (list.length > MAX_LISTEN_URIS) throw invalidParams(`resourceSubscriptions holds more than ${MAX_LISTEN_URIS} URIs`);
  chosen.uris = new Set(list as string[]);
  return chosen;
}

/** The filter as acknowledged to the client (the keys it set, nothing else). */
function acknowledged(chosen: ListenFilter): JsonObject {
  const out: JsonObject = {};
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged', 'eventsListChanged'] as const) if (chosen[key]) out[key] = true;
  if (chosen.uris !== undefined) out.resourceSubscriptions = [...chosen.uris];
  if (chosen.taskIds !== undefined) out.taskIds = chosen.taskIds;
  return out;
}

function wants(filter: ListenFilter, event: BusEvent): boolean {
  switch (event.type) {
    case 'tools/list_changed': return filter.toolsListChanged;
    case 'prompts/list_changed': return filter.promptsListChanged;
    case 'resources/list_changed': return filter.resourcesListChanged;
    case 'events/list_changed': return filter.eventsListChanged;
    case 'resources/updated': return filter.uris?.has(event.uri) === true;
  }
}

/** 2026 `subscriptions/listen`: an acknowledgement, then tagged notifications until the client goes away. */
export async function listen(core: Core<unknown>, call: MethodCall<unknown>): Promise<JsonObject> {
  const send = call.send;
  if (!send) throw internalError('subscriptions/listen needs a streaming transport');
  const filter = call.params.notifications;
  if (!isObject(filter)) throw invalidParams('params.notifications must be an object');
  if (!jsonWithin(call.params, MAX_LISTEN_PARAMS_CHARS)) {
    throw invalidParams(`subscriptions/listen params are larger than ${MAX_LISTEN_PARAMS_CHARS} characters`);
  }
  const chosen = honoured(filter as JsonObject, call, core.tools.servesTasks(), core.methods.has('events/list'));
  // Streams hold no concurrency slot, so they have a cap of their own, in all and per principal.
  const held = core.streams.hold(call.principal);
  if (typeof held !== 'function') throw held;
  try {
    return await stream(core, call, send, chosen);
  } finally {
    held();
  }
}

async function stream(core: Core<unknown>, call: MethodCall<unknown>, send: Send, chosen: ListenFilter): Promise<JsonObject> {
  const subscriptionId = call.id;
  const tag = { [META.subscriptionId]: subscriptionId };
  send({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: tag, notifications: acknowledged(chosen) } });
  // A list change reaches the stream only when the list this caller sees changed.
  const view = new ListView(core, call.ctx);
  const idJson = JSON.stringify(subscriptionId);
  const unsubscribe = core.state.bus.subscribe((event) => {
    if (wants(chosen, event) && view.concerns(event)) send(taggedNotification(event, subscriptionId, idJson));
  });
  const unwatch = chosen.taskIds ? watchTasks(core, call, chosen.taskIds, send, tag) : undefined;
  const signal = call.ctx.signal;
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  unsubscribe();
  unwatch?.();
  return { _meta: tag };
}
