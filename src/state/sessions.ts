/**
 * 2025 per-session state that a session id cannot carry: the log level (`logging/setLevel`), the
 * resource subscriptions (`resources/subscribe`), and which GET stream holds the session's one
 * notification channel. Over HTTP each request may land on another instance, so this lives here and
 * not on a connection object. stdio keeps its own Connection and never uses it.
 */
import type { Connection } from '../signing/session-ids.js';
import type { LoggingLevel, MaybePromise } from '../types.js';

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
  update(session: string, patch: SessionPatch): MaybePromise<void>;
  /** Takes the session's one GET stream for `holder`; false when another holder has it (HTTP 409). */
  claimStream(session: string, holder: string): MaybePromise<boolean>;
  /** Gives the GET stream back (only `holder`'s own claim). */
  releaseStream(session: string, holder: string): void;
}

export interface MemorySessionLimits {
  /** Sessions remembered at once; past it the least recently used is forgotten. Default 10,000. */
  maxSessions: number;
  /** Subscriptions per session. Default 1,000. */
  maxSubscriptions: number;
}

/** One process: a Map in least-recently-used order, bounded. */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, { logLevel?: LoggingLevel; subscriptions?: Set<string> }>();
  readonly #streams = new Map<string, string>();
  readonly #limits: MemorySessionLimits;

  constructor(limits: Partial<MemorySessionLimits> = {}) {
    this.#limits = { maxSessions: 10_000, maxSubscriptions: 1_000, ...limits };
  }

  get(session: string): SessionState | undefined {
    const entry = this.#sessions.get(session);
    if (entry === undefined) return undefined;
    this.#sessions.delete(session); // most recently used goes last
    this.#sessions.set(session, entry);
    return { logLevel: entry.logLevel, subscriptions: entry.subscriptions ? [...entry.subscriptions] : undefined };
  }

  update(session: string, patch: SessionPatch): void {
    let entry = this.#sessions.get(session);
    if (entry === undefined) {
      if (this.#sessions.size >= this.#limits.maxSessions) this.#sessions.delete(this.#sessions.keys().next().value!);
      this.#sessions.set(session, (entry = {}));
    }
    if (patch.logLevel !== undefined) entry.logLevel = patch.logLevel;
    if (patch.unsubscribe !== undefined) entry.subscriptions?.delete(patch.unsubscribe);
    if (patch.subscribe !== undefined) {
      const subscriptions = (entry.subscriptions ??= new Set());
      if (subscriptions.size >= this.#limits.maxSubscriptions) throw new RangeError(`A session may hold at most ${this.#limits.maxSubscriptions} subscriptions`);
      subscriptions.add(patch.subscribe);
    }
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

/** A session change, onto the connection the request runs on. */
export function patchConnection(connection: Connection, patch: SessionPatch): void {
  if (patch.logLevel !== undefined) connection.logLevel = patch.logLevel;
  if (patch.subscribe !== undefined) (connection.subscriptions ??= new Set()).add(patch.subscribe);
  if (patch.unsubscribe !== undefined) connection.subscriptions?.delete(patch.unsubscribe);
}
