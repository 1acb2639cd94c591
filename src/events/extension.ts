/**
 * The Events extension (SEP-3415, `io.modelcontextprotocol/events`) served on the public extension
 * API: `events/list`, `events/poll`, `events/stream`, `events/subscribe` and `events/unsubscribe` are
 * `mcp.method()` registrations declaring the capability in both shapes deployed clients read (the
 * extensions map, and the top-level `events` of the design sketch). Served in both eras.
 */
import type { Context } from '../context/context.js';
import type { MethodCapability, MethodHandler, MethodOptions } from '../methods/extension.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { SchemaLike } from '../schema/standard-schema.js';
import type { CacheHint } from '../protocol/mcp-types.js';
import { LIST_PARAMS, POLL_PARAMS, STREAM_PARAMS, SUBSCRIBE_PARAMS, UNSUBSCRIBE_PARAMS } from './params.js';
import type { Webhooks } from './subscribe.js';
import { listEvents, pollEvents } from './poll.js';
import type { EventService } from './service.js';
import type { EventSettings } from './settings.js';
import { streamEvents, type StreamHost } from './stream.js';

export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';

/** What the extension needs of the server: the public registration API and the stream quota. */
export interface EventHost<Scope> extends StreamHost<Scope> {
  method(name: string, options: MethodOptions<SchemaLike | undefined, Scope>, handler: MethodHandler<Scope, unknown>): unknown;
}

/** Both shapes: the extensions map (SEP-3415) and top-level `events` (the sketch, read by the AI SDK and ChatGPT). */
export const EVENTS_CAPABILITY: readonly MethodCapability[] = [
  { extension: EVENTS_EXTENSION, settings: { listChanged: true } },
  { core: 'events', settings: { listChanged: true } },
];

export interface EventMethodSettings {
  pageSize: number;
  listCache: CacheHint;
}

type Handler<Scope> = (params: JsonObject, ctx: Context<Scope>) => Promise<JsonObject> | JsonObject;

export function registerEventMethods<Scope>(host: EventHost<Scope>, service: EventService<Scope>, settings: EventSettings, methods: EventMethodSettings, webhooks: Webhooks<Scope> | undefined): void {
  const add = (name: string, params: SchemaLike, handler: Handler<Scope>, extra: Partial<MethodOptions<SchemaLike, Scope>> = {}) =>
    host.method(name, { params, ...extra }, handler as MethodHandler<Scope, unknown>);
  add('events/list', LIST_PARAMS, (params, ctx) => listEvents(service, params, ctx, methods.pageSize), {
    capability: EVENTS_CAPABILITY, cache: methods.listCache,
    // A list that differs by caller is never cached for another one.
    personal: () => service.personal,
  });
  add('events/poll', POLL_PARAMS, (params, ctx) => pollEvents(service, settings, params, ctx));
  add('events/stream', STREAM_PARAMS, (params, ctx) => streamEvents(service, settings, host, params, ctx), { stream: true });
  // Without a delivery engine no type offers webhook: the methods are not served (-32601).
  if (webhooks === undefined) return;
  add('events/subscribe', SUBSCRIBE_PARAMS, (params, ctx) => webhooks.subscribe(params, ctx));
  add('events/unsubscribe', UNSUBSCRIBE_PARAMS, (params, ctx) => webhooks.unsubscribe(params, ctx));
}
