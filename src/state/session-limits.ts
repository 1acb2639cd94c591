/**
 * The bounds on 2025 session state (log level and `resources/subscribe` URIs), shared by the memory
 * and Redis session stores and by a transport's own connection (stdio). A URI counts its characters.
 */
import { limitsOver } from '../option-checks.js';
import { boundError, firstFull, type BoundReached, type Room, type Usage } from './bounds.js';

export interface SessionLimits {
  /** Sessions whose state is kept at once, all principals. Default 10,000. */
  maxSessions: number;
  /** Sessions of one named principal; past it, that principal's least recently used one is forgotten. Default 1,000. */
  maxSessionsPerPrincipal: number;
  /** Subscriptions of one session. Default 1,000. */
  maxSubscriptions: number;
  /** Characters of subscribed URIs of one session. Default 256 KiB. */
  maxSubscriptionChars: number;
  /** Subscriptions of one named principal, over its sessions. Default 10,000. */
  maxSubscriptionsPerPrincipal: number;
  /** Characters of subscribed URIs of one named principal. Default 4 MiB. */
  maxSubscriptionCharsPerPrincipal: number;
  /** Subscriptions kept, all principals. Default 100,000. */
  maxTotalSubscriptions: number;
  /** Characters of subscribed URIs kept, all principals. Default 64 MiB. */
  maxTotalSubscriptionChars: number;
}

export const DEFAULT_SESSION_LIMITS: Readonly<SessionLimits> = {
  maxSessions: 10_000,
  maxSessionsPerPrincipal: 1_000,
  maxSubscriptions: 1_000,
  maxSubscriptionChars: 256 * 1024,
  maxSubscriptionsPerPrincipal: 10_000,
  maxSubscriptionCharsPerPrincipal: 4 * 1024 * 1024,
  maxTotalSubscriptions: 100_000,
  maxTotalSubscriptionChars: 64 * 1024 * 1024,
};

/** The limits with `given` over the defaults; a TypeError names a value that is not a positive integer. */
export function sessionLimits(given: Partial<SessionLimits> = {}): SessionLimits {
  return limitsOver(DEFAULT_SESSION_LIMITS, given, 'Session limit');
}

/** The error for a reached session bound (the memory and Redis stores name the same ones). */
export function sessionBoundError(limits: SessionLimits, bound: keyof SessionLimits, principal: string): BoundReached {
  const processWide = bound === 'maxSessions' || bound.startsWith('maxTotal');
  const row: Room = [limits[bound], 1, limits[bound], bound, processWide];
  const what = bound === 'maxSessions' ? 'sessions' : bound.includes('Chars') ? 'subscribed URI characters' : 'subscriptions';
  return boundError(row, principal, what, bound.includes('PerPrincipal') ? 'one client' : 'a session');
}

/**
 * The error for one more subscribed URI of `size` characters, or undefined when it fits. `principal`
 * is undefined where only the session counts (a transport's own connection); '' (anonymous) has no
 * share of its own, only the server-wide bounds.
 */
export function subscriptionRefused(limits: SessionLimits, size: number, usage: { session: Usage; principal?: Usage; total?: Usage }, principal = ''): BoundReached | undefined {
  const { session, principal: mine, total } = usage;
  const rows: Room[] = [[session.count, 1, limits.maxSubscriptions, 'maxSubscriptions'], [session.size, size, limits.maxSubscriptionChars, 'maxSubscriptionChars']];
  if (mine && principal !== '') {
    rows.push([mine.count, 1, limits.maxSubscriptionsPerPrincipal, 'maxSubscriptionsPerPrincipal'], [mine.size, size, limits.maxSubscriptionCharsPerPrincipal, 'maxSubscriptionCharsPerPrincipal']);
  }
  if (total) rows.push([total.count, 1, limits.maxTotalSubscriptions, 'maxTotalSubscriptions'], [total.size, size, limits.maxTotalSubscriptionChars, 'maxTotalSubscriptionChars']);
  const full = firstFull(rows);
  return full === undefined ? undefined : sessionBoundError(limits, full[3] as keyof SessionLimits, principal);
}
