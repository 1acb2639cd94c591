/**
 * The event log: what `emit()` appends and what poll, push and webhook read from a cursor. One log
 * per server holds every event type, each bounded in count and age (its retention). The interface is
 * small so a shared log (Redis Streams, src/events/redis-log.ts) can stand in for the memory one.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { MaybePromise } from '../protocol/mcp-types.js';

export interface LoggedEvent {
  /** Where it sits in its type's log: the position a cursor after it names. */
  readonly position: string;
  readonly eventId: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  readonly data: JsonObject;
}

export interface Retention {
  /** Events kept per type; older ones are dropped first. */
  readonly maxEvents: number;
  /** Events older than this are dropped. */
  readonly maxAgeMs: number;
}

export interface LogRead {
  /** Where reading began: `after`, or later when what followed it was dropped (`truncated`). */
  readonly start: string;
  readonly entries: readonly LoggedEvent[];
  /** The position to resume after: the last entry read, or where reading stood when there was none. */
  readonly next: string;
  /** Events after `after` were dropped before they were read: the reader starts later than it asked. */
  readonly truncated: boolean;
  /** More entries follow `next` already. */
  readonly more: boolean;
}

export interface EventLog {
  /** Names this log: a cursor from another (a restarted process) cannot say what it missed. */
  epoch(name: string): MaybePromise<string>;
  append(name: string, event: Omit<LoggedEvent, 'position'>, retention: Retention): MaybePromise<LoggedEvent>;
  /** At most `limit` entries after `after` (`undefined`: from the oldest kept, a cursor of another epoch). */
  read(name: string, after: string | undefined, limit: number, retention: Retention): MaybePromise<LogRead>;
  /** The position of the newest entry: "now" for a new subscription. */
  head(name: string): MaybePromise<string>;
  /** Called after an event of `name` is appended, here or (shared log) on another instance. */
  watch(name: string, listener: () => void): () => void;
  /** Stops what the log runs (subscriptions to other instances). */
  close?(): Promise<void>;
}

/** One type's events in memory, oldest first, with the highest position ever dropped. */
class TypeLog {
  readonly entries: LoggedEvent[] = [];
  /** Entries before this index are dropped, not yet spliced out (amortised removal). */
  start = 0;
  next = 1;
  dropped = 0;
  readonly listeners = new Set<() => void>();

  trim(retention: Retention, now: number): void {
    const oldest = now - retention.maxAgeMs;
    while (this.entries.length - this.start > retention.maxEvents || (this.start < this.entries.length && this.entries[this.start]!.timestamp < oldest)) {
      this.dropped = Number(this.entries[this.start]!.position);
      this.start++;
    }
    if (this.start > 1024 && this.start * 2 > this.entries.length) {
      this.entries.splice(0, this.start);
      this.start = 0;
    }
  }

  /** Index of the first kept entry after position `after`. */
  firstAfter(after: number): number {
    let low = this.start;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (Number(this.entries[mid]!.position) <= after) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/** The in-process log: positions are sequence numbers, the epoch is random per process. */
export class MemoryEventLog implements EventLog {
  readonly #types = new Map<string, TypeLog>();
  readonly #epoch = Math.random().toString(36).slice(2, 10);

  #type(name: string): TypeLog {
    let log = this.#types.get(name);
    if (log === undefined) this.#types.set(name, (log = new TypeLog()));
    return log;
  }

  epoch(): string {
    return this.#epoch;
  }

  append(name: string, event: Omit<LoggedEvent, 'position'>, retention: Retention): LoggedEvent {
    const log = this.#type(name);
    const entry: LoggedEvent = { position: String(log.next++), ...event };
    log.entries.push(entry);
    log.trim(retention, Date.now());
    for (const listener of log.listeners) listener();
    return entry;
  }

  read(name: string, after: string | undefined, limit: number, retention: Retention): LogRead {
    const log = this.#type(name);
    log.trim(retention, Date.now());
    const from = after === undefined ? log.dropped : Number(after);
    const truncated = after === undefined || from < log.dropped;
    const start = Math.max(from, log.dropped);
    const index = log.firstAfter(start);
    const entries = log.entries.slice(index, index + limit);
    const next = entries.length > 0 ? entries[entries.length - 1]!.position : String(start);
    return { start: String(start), entries, next, truncated, more: index + limit < log.entries.length };
  }

  head(name: string): string {
    return String(this.#type(name).next - 1);
  }

  watch(name: string, listener: () => void): () => void {
    const listeners = this.#type(name).listeners;
    listeners.add(listener);
    return () => listeners.delete(listener);
  }
}
