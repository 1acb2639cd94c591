/** `events/list` and `events/poll`: plain request/response, no state kept between requests. */
import type { Context } from '../context/context.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { paginate } from '../primitives/pagination.js';
import { maxAgeOf } from './params.js';
import type { EventService } from './service.js';
import type { EventSettings } from './settings.js';

/** `events/list`: the types this caller may see, paginated like `tools/list` (private where a rule applies: see src/methods/extension.ts). */
export function listEvents<Scope>(service: EventService<Scope>, params: JsonObject, ctx: Context<Scope>, pageSize: number): JsonObject {
  const { page, nextCursor } = paginate(service.visibleTo(ctx), params.cursor, pageSize);
  const result: JsonObject = { events: page.map((type) => type.descriptor) };
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  return result;
}

/**
 * `events/poll`: one subscription per request. A null cursor bootstraps: no events and the cursor of
 * now. Otherwise the matching events after the cursor, at most `maxEvents`, and the cursor after
 * them (which moves over what did not match, so a quiet subscription's cursor advances too).
 */
export async function pollEvents<Scope>(service: EventService<Scope>, settings: EventSettings, params: JsonObject, ctx: Context<Scope>): Promise<JsonObject> {
  const subscription = await service.resolve(params, 'poll', ctx);
  const { type } = subscription;
  const from = service.from(type, params.cursor);
  const limit = Math.min(typeof params.maxEvents === 'number' ? params.maxEvents : settings.maxPollEvents, settings.maxPollEvents);
  if (from === null && type.source === undefined) {
    return { events: [], cursor: service.cursorOf(type, await service.now(type)), truncated: false, hasMore: false, nextPollMs: settings.nextPollMs };
  }
  const read = await service.read(subscription, from, maxAgeOf(params), limit, ctx);
  return { events: read.events as unknown as JsonObject[], cursor: service.cursorOf(type, read.next), truncated: read.truncated, hasMore: read.more, nextPollMs: settings.nextPollMs };
}
