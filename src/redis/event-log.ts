/**
 * The Events extension's log on Redis Streams: one stream per event type, `<prefix>ev:<name>`. An
 * append is one script: `XADD` trimmed to the type's count (`MAXLEN`) and age (`XTRIM MINID`), the
 * key's TTL renewed to the age bound, and a message on `<prefix>evc:<name>` that wakes every
 * instance's push streams of that type. A position is a stream entry id, so any instance reads from
 * any cursor with `XRANGE (<id> + COUNT n`. The append records the newest id it trimmed in
 * `<prefix>ev:<name>:cut`: a cursor before it lost events (`truncated`), and so did a cursor older
 * than the age bound of a stream that expired whole (an hour after the age bound, idle).
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { EventLog, LoggedEvent, LogRead, Retention } from '../state/event-log.js';
import type { Link } from './connection.js';

// KEYS: the stream, its cut (the newest id ever trimmed). ARGV: maxEvents, minimum id (ms), ttl ms,
// channel, eventId, timestamp, data. Trimming does not move XINFO's max-deleted-entry-id, so the
// script records the cut itself: the last entry the count bound or the age bound removes.
const APPEND = `
local id = redis.call('XADD', KEYS[1], '*', 'i', ARGV[5], 't', ARGV[6], 'd', ARGV[7])
local over = redis.call('XLEN', KEYS[1]) - tonumber(ARGV[1])
local cut = false
if over > 0 then
  local gone = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', over)
  cut = gone[#gone][1]
  redis.call('XTRIM', KEYS[1], 'MAXLEN', ARGV[1])
end
local aged = redis.call('XREVRANGE', KEYS[1], '(' .. ARGV[2], '-', 'COUNT', 1)
if #aged > 0 then
  cut = aged[1][1]
  redis.call('XTRIM', KEYS[1], 'MINID', ARGV[2])
end
if cut then redis.call('SET', KEYS[2], cut) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[4], '{}')
return id`;

// KEYS: the stream. Atomic, so no entry can be added between the look and the clock: the newest id,
// or (no stream) the last possible id of the previous millisecond, before any id XADD makes from now on.
const HEAD = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #last > 0 then return last[1][1] end
end
local now = redis.call('TIME')
return (tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - 1) .. '-999999999999999'`;

const EPOCH = 'redis';

/** The stream and its cut outlive the age bound by this much, so an idle type still knows what it trimmed. */
const KEEP_CUT_MS = 3_600_000;

type Entry = { id: string; message: Record<string, string> };

/** Compares two stream ids (`<ms>-<seq>`) numerically. */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

const ID = /^\d{1,15}-\d{1,15}$/;

export class RedisEventLog implements EventLog {
  readonly #listeners = new Map<string, Set<() => void>>();

  constructor(private readonly link: Link) {}

  #key(name: string): string {
    return `${this.link.prefix}ev:${name}`;
  }

  #channel(name: string): string {
    return `${this.link.prefix}evc:${name}`;
  }

  epoch(): string {
    return EPOCH;
  }

  async append(name: string, event: Omit<LoggedEvent, 'position'>, retention: Retention): Promise<LoggedEvent> {
    const args = [retention.maxEvents, event.timestamp - retention.maxAgeMs, retention.maxAgeMs + KEEP_CUT_MS, this.#channel(name), event.eventId, event.timestamp, JSON.stringify(event.data)];
    const key = this.#key(name);
    const id = await this.link.commands.eval(APPEND, { keys: [key, `${key}:cut`], arguments: args.map(String) });
    return { position: String(id), ...event };
  }

  async read(name: string, after: string | undefined, limit: number, retention: Retention): Promise<LogRead> {
    const key = this.#key(name);
    const [exists, cut] = await Promise.all([this.link.commands.exists(key), this.link.commands.get(`${key}:cut`)]);
    const from = after !== undefined && ID.test(after) ? after : '0-0';
    const behind = cut !== null && compareIds(from, cut) < 0;
    // A stream idle past its age bound expired whole: a cursor older than that bound lost what it held.
    const expiredWhole = exists === 0 && from !== '0-0' && Number(from.split('-')[0]) < Date.now() - retention.maxAgeMs;
    const truncated = after === undefined || behind || expiredWhole;
    const start = behind ? cut : from;
    const raw = (await this.link.commands.xRange(key, `(${start}`, '+', { COUNT: limit })) as unknown as Entry[];
    const oldest = Date.now() - retention.maxAgeMs;
    const all = raw.map((entry) => this.#entry(entry));
    const entries = all.filter((entry) => entry.timestamp >= oldest);
    // Entries past the age bound not trimmed yet (no append since) are dropped here, and said so.
    const aged = entries.length < all.length;
    const next = raw.length > 0 ? raw[raw.length - 1]!.id : start;
    return { start: aged ? all[all.length - entries.length - 1]!.position : start, entries, next, truncated: truncated || aged, more: raw.length === limit };
  }

  #entry(entry: Entry): LoggedEvent {
    return { position: entry.id, eventId: entry.message.i ?? '', timestamp: Number(entry.message.t), data: JSON.parse(entry.message.d ?? '{}') as JsonObject };
  }

  /** The newest id; for a type with no stream yet, just before Redis's clock (every later XADD's id is after it). */
  async head(name: string): Promise<string> {
    return String(await this.link.commands.eval(HEAD, { keys: [this.#key(name)] }));
  }

  watch(name: string, listener: () => void): () => void {
    let listeners = this.#listeners.get(name);
    if (listeners === undefined) {
      const set = new Set<() => void>();
      this.#listeners.set(name, (listeners = set));
      // Once per type and instance, for the instance's life: a type is registered code, not client input.
      this.link.listen<object>(this.#channel(name), () => {
        for (const wake of set) wake();
      }).catch((error: unknown) => this.link.failed('events', error));
    }
    listeners.add(listener);
    const own = listeners;
    return () => own.delete(listener);
  }
}
