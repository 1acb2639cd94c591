/**
 * 2025 per-session state that a session id cannot carry: the log level (`logging/setLevel`), the
 * resource subscriptions (`resources/subscribe`), and which GET stream holds the session's one
 * notification channel. Over HTTP each request may land on another instance, so this lives here and
 * not on a connection object. stdio keeps its own Connection and never uses it.
 */
import type { Connection } from '../signing/session-ids.js';
import type { LoggingLevel, MaybePromise } from '../protocol/mcp-types.js';
import type { Usage } from './bounds.js';
import { BoundsLedger } from './ledger.js';
import { sessionBoundError, sessionLimits, subscriptionRefused, type SessionLimits } from './session-limits.js';

export interface SessionState {
  logLevel?: LoggingLevel;
  subscriptions?: readonly string[];
}

/** One change: a new log level, or one URI subscribed or unsubscribed. */
export interface SessionPatch {
  logLevel?: LoggingLevel;
  subscribe?: string;
  unsubscribe?: string;
}

/** The seam. Sessions are keyed by the random part of their (signed, principal-bound) id. */
export interface SessionStore {
  get(session: string): MaybePromise<SessionState | undefined>;
  /**
   * Keeps a change. `principal` (who owns the session, '' anonymous) lets the store bound what each
   * principal keeps; past a bound it throws (or rejects with) a `BoundReached` and keeps nothing.
   */
  update(session: string, patch: SessionPatch, principal?: string): MaybePromise<void>;
  /** Takes the session's one GET stream for `holder`; false when another holder has it (HTTP 409). */
  claimStream(session: string, holder: string): MaybePromise<boolean>;
  /** Gives the GET stream back (only `holder`'s own claim). */
  releaseStream(session: string, holder: string): void;
}

/** @deprecated The name before the subscription bounds; use `SessionLimits`. */
export type MemorySessionLimits = SessionLimits;

interface Entry extends Usage {
  readonly principal: string;
  logLevel?: LoggingLevel;
  subscriptions?: Set<string>;
}

/** One principal's sessions, least recently used first. */
interface Holder {
  readonly sessions: Map<string, Entry>;
}

/**
 * One process, bounded (SessionLimits). A principal at its share forgets its own least recently
 * used session; a full store forgets the caller's own, or refuses: never another principal's state.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Entry>();
  readonly #holders = new Map<string, Holder>();
  /** Subscriptions and their URI characters, per named principal and in all. */
  readonly #subscriptions = new BoundsLedger();
  readonly #streams = new Map<string, string>();
  readonly #limits: SessionLimits;

  constructor(limits: Partial<SessionLimits> = {}) {
    this.#limits = sessionLimits(limits);
  }

  get(session: string): SessionState | undefined {
    const entry = this.#sessions.get(session);
    if (entry === undefined) return undefined;
    const mine = this.#holders.get(entry.principal)!.sessions;
    mine.delete(session); // most recently used goes last
    mine.set(session, entry);
    return { logLevel: entry.logLevel, subscriptions: entry.subscriptions ? [...entry.subscriptions] : undefined };
  }

  update(session: string, patch: SessionPatch, principal = ''): void {
    const entry = this.#sessions.get(session) ?? this.#add(session, principal);
    if (patch.logLevel !== undefined) entry.logLevel = patch.logLevel;
    if (patch.unsubscribe !== undefined && entry.subscriptions?.delete(patch.unsubscribe)) this.#count(entry, -1, -patch.unsubscribe.length);
    const uri = patch.subscribe;
    if (uri === undefined || entry.subscriptions?.has(uri)) return;
    const ledger = this.#subscriptions;
    const refused = subscriptionRefused(this.#limits, uri.length, { session: entry, principal: ledger.of(entry.principal), total: ledger.total }, entry.principal);
    if (refused) throw refused;
    (entry.subscriptions ??= new Set()).add(uri);
    this.#count(entry, 1, uri.length);
  }

  /** A new session's entry, after making room among the caller's own sessions. */
  #add(session: string, principal: string): Entry {
    // A holder is made only once its first session is admitted: a refused newcomer leaves nothing behind.
    const holder = this.#holders.get(principal) ?? { sessions: new Map<string, Entry>() };
    const { maxSessions, maxSessionsPerPrincipal } = this.#limits;
    const atShare = principal !== '' && holder.sessions.size >= maxSessionsPerPrincipal;
    if (atShare || this.#sessions.size >= maxSessions) {
      const oldest = holder.sessions.keys().next();
      if (oldest.done) throw sessionBoundError(this.#limits, 'maxSessions', principal);
      this.#forget(oldest.value);
    }
    if (holder.sessions.size === 0) this.#holders.set(principal, holder);
    const entry: Entry = { principal, count: 0, size: 0 };
    this.#sessions.set(session, entry);
    holder.sessions.set(session, entry);
    return entry;
  }

  #forget(session: string): void {
    const entry = this.#sessions.get(session)!;
    this.#count(entry, -entry.count, -entry.size);
    this.#sessions.delete(session);
    this.#holders.get(entry.principal)!.sessions.delete(session);
  }

  /** Adds to the counts of the session, its principal and the process. */
  #count(entry: Entry, count: number, size: number): void {
    entry.count += count;
    entry.size += size;
    this.#subscriptions.add(entry.principal, count, size);
  }

  claimStream(session: string, holder: string): boolean {
    const current = this.#streams.get(session);
    if (current !== undefined && current !== holder) return false;
    this.#streams.set(session, holder);
    return true;
  }

  releaseStream(session: string, holder: string): void {
    if (this.#streams.get(session) === holder) this.#streams.delete(session);
  }
}

/** What the session store kept, onto the connection rebuilt from the session id. */
export function applySession(connection: Connection, state: SessionState): void {
  if (state.logLevel !== undefined) connection.logLevel = state.logLevel;
  if (state.subscriptions !== undefined) connection.subscriptions = new Set(state.subscriptions);
}

/**
 * A session change, onto the connection the request runs on. A transport's own connection (stdio)
 * keeps it for good, so there its subscriptions are bounded per session (`limits`).
 */
export function patchConnection(connection: Connection, patch: SessionPatch, limits?: SessionLimits): void {
  const uri = patch.subscribe;
  const kept = connection.subscriptions;
  if (limits !== undefined && uri !== undefined && kept?.has(uri) !== true) {
    let bytes = 0;
    for (const known of kept ?? []) bytes += known.length;
    const refused = subscriptionRefused(limits, uri.length, { session: { count: kept?.size ?? 0, size: bytes } });
    if (refused) throw refused;
  }
  if (patch.logLevel !== undefined) connection.logLevel = patch.logLevel;
  if (uri !== undefined) (connection.subscriptions ??= new Set()).add(uri);
  if (patch.unsubscribe !== undefined) connection.subscriptions?.delete(patch.unsubscribe);
}
