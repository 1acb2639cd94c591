/**
 * Reading one subscription's occurrences from a cursor, shared by poll, push and webhooks: the log
 * for emitted types (filtered by `matches`, bounded in what one read scans), the upstream for a
 * `source`. Returns the cursor to resume after, which advances over events that did not match, so a
 * quiet subscription's cursor still moves.
 */
import type { Context } from '../context/context.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { CursorPosition } from './cursor.js';
import type { EventType } from './event-type.js';
import type { EventLog, LoggedEvent, Retention } from '../state/event-log.js';

export interface Occurrence {
  readonly eventId: string;
  readonly name: string;
  readonly timestamp: string;
  readonly data: JsonObject;
}

export interface SubscriptionRead {
  /** Where reading began (later than asked when `truncated`); null: the type has no replay. */
  readonly start: CursorPosition | null;
  readonly events: Occurrence[];
  /** Where the next read starts (null: the type has no replay). */
  readonly next: CursorPosition | null;
  /** Positions of `events`, one each (for push and webhook cursors). */
  readonly positions: CursorPosition[];
  readonly truncated: boolean;
  readonly more: boolean;
}

/** A type without replay still passes its events through the log, briefly: push reads them from there. */
export const PASS_THROUGH: Retention = Object.freeze({ maxEvents: 1_000, maxAgeMs: 60_000 });

/** The most log entries one read looks at, matching or not: a selective subscription costs bounded work. */
export const SCAN_BUDGET = 10_000;

export const occurrenceOf = (name: string, event: Pick<LoggedEvent, 'eventId' | 'timestamp' | 'data'>): Occurrence => ({
  eventId: event.eventId,
  name,
  timestamp: new Date(event.timestamp).toISOString(),
  data: event.data,
});

export interface ReadRequest {
  readonly args: JsonObject;
  /** Null: from now. */
  readonly from: CursorPosition | null;
  readonly maxAgeMs: number | undefined;
  readonly limit: number;
}

/** Reads an emitted type's log after `from` (a cursor of another log epoch starts at the oldest kept, truncated). */
export async function readLog<Scope>(log: EventLog, type: EventType<Scope>, request: ReadRequest): Promise<SubscriptionRead> {
  const epoch = await log.epoch(type.name);
  const retention = type.retention ?? PASS_THROUGH;
  let after = request.from === null ? await log.head(type.name) : request.from.epoch === epoch ? request.from.position : undefined;
  const oldest = request.maxAgeMs === undefined || request.from === null ? -Infinity : Date.now() - request.maxAgeMs;
  const events: Occurrence[] = [];
  const positions: CursorPosition[] = [];
  let truncated = false;
  let start: CursorPosition | null = null;
  let scanned = 0;
  let more = false;
  // The first read takes what the caller wants; later ones (a selective subscription) grow.
  for (let first = true, batch = request.limit; ; first = false, batch = Math.min(batch * 4, 1_000)) {
    batch = Math.min(batch, SCAN_BUDGET - scanned);
    const read = await log.read(type.name, after, batch, retention);
    if (first) {
      truncated = read.truncated;
      start = { epoch, position: read.start };
    }
    after = read.next;
    scanned += read.entries.length;
    for (let i = 0; i < read.entries.length; i++) {
      const entry = read.entries[i]!;
      if (entry.timestamp < oldest || !safeMatch(type, request.args, entry.data)) continue;
      events.push(occurrenceOf(type.name, entry));
      positions.push({ epoch, position: entry.position });
      if (events.length === request.limit) {
        after = entry.position;
        more = i < read.entries.length - 1 || read.more;
        return { start, events, positions, next: { epoch, position: after }, truncated, more };
      }
    }
    more = read.more;
    if (!read.more || scanned >= SCAN_BUDGET) break;
  }
  return { start, events, positions, next: { epoch, position: after! }, truncated, more };
}

/** A `matches` that throws does not match (the occurrence is not this subscriber's). */
function safeMatch<Scope>(type: EventType<Scope>, args: JsonObject, data: JsonObject): boolean {
  try {
    return type.matches(args, data) === true;
  } catch {
    return false;
  }
}

const SOURCE_EPOCH = 'source';
const MAX_UPSTREAM_CURSOR = 1_024;

/** Reads a `source` type's upstream: its cursor rides inside ours. */
export async function readSource<Scope>(type: EventType<Scope>, request: ReadRequest, ctx: Context<Scope>): Promise<SubscriptionRead> {
  const read = await type.source!(request.args, request.from === null ? null : request.from.position, ctx);
  if (typeof read !== 'object' || read === null || !Array.isArray(read.events)) throw new TypeError(`The source of ${type.name} returned no { events, cursor }`);
  const cursor = read.cursor;
  if (cursor !== null && (typeof cursor !== 'string' || cursor.length > MAX_UPSTREAM_CURSOR)) throw new TypeError(`The source of ${type.name} returned a cursor that is not a string of at most ${MAX_UPSTREAM_CURSOR} characters`);
  const oldest = request.maxAgeMs === undefined || request.from === null ? -Infinity : Date.now() - request.maxAgeMs;
  const events: Occurrence[] = [];
  for (const event of read.events) {
    const at = event.timestamp === undefined ? Date.now() : new Date(event.timestamp).getTime();
    if (typeof event.eventId !== 'string' || !Number.isFinite(at)) throw new TypeError(`The source of ${type.name} returned an event without an eventId or a valid timestamp`);
    if (at >= oldest) events.push(occurrenceOf(type.name, { eventId: event.eventId, timestamp: at, data: event.data as JsonObject }));
  }
  const next = cursor === null ? null : { epoch: SOURCE_EPOCH, position: cursor };
  return { start: request.from, events, positions: events.map(() => next!), next, truncated: read.truncated === true, more: false };
}
