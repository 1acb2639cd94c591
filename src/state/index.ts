/**
 * The state that outlives one request, behind one small interface per piece. Every piece has an
 * in-memory default that serves one process with no dependency and no promise; a shared
 * implementation (minimcp/redis, or your own over another engine) makes N instances behave as one.
 */
import { PendingRequests, type AnswerRoute } from './answers.js';
import { MemoryBus, type NotificationBus } from './bus.js';
import { RequestRegistry, type CancelRoute } from './cancels.js';
import { EventStore, type ReplayStore } from './replay.js';
import { MemorySessionStore, type SessionStore } from './sessions.js';
import { MemoryTaskStore } from './memory-task-store.js';
import type { TaskStore } from './task-store.js';
import { MemoryProofStore, type ProofStore } from './proofs.js';
import { MemoryRateStore, type RateStore } from './rates.js';
import type { EventLog } from './event-log.js';
import type { SubscriptionStore } from './event-subscriptions.js';

export interface SharedState {
  /** list_changed and resources/updated, to every listening stream. */
  bus: NotificationBus;
  /** 2025 answers to elicitation, sampling and roots, to the waiting handler. */
  answers: AnswerRoute;
  /** notifications/cancelled, to the running request. */
  cancels: CancelRoute;
  /** 2025 log level, resource subscriptions and the GET stream claim, per session. */
  sessions: SessionStore;
  /** 2025 SSE events of streams whose response ended, for a resuming GET. */
  replay: ReplayStore;
  /** Tasks: their records, owner heartbeats and changes (the `tasks.store` option, when given, wins). */
  tasks: TaskStore;
  /** DPoP proof ids already seen (minimcp/auth), so a replayed proof is refused on every instance. */
  proofs: ProofStore;
  /** Per-principal token buckets of the `rateLimit` option, so a principal's budget holds on every instance. */
  rates: RateStore;
  /** The Events extension's log, when shared (minimcp/redis); `mcp.event()` keeps one in memory otherwise. */
  events?: EventLog | undefined;
  /** The Events extension's webhook subscription records, when shared (minimcp/redis); in memory otherwise. */
  eventSubscriptions?: SubscriptionStore | undefined;
  /**
   * True when other instances share this state: the server then refuses to start without a shared
   * `requestState.secret` (sessions and MRTR state signed on one instance must open on another).
   */
  readonly shared?: boolean;
}

/** The in-memory defaults, with any piece replaced by `parts`. */
export function resolveState(parts: Partial<SharedState> = {}): SharedState {
  return {
    bus: parts.bus ?? new MemoryBus(),
    answers: parts.answers ?? new PendingRequests(),
    cancels: parts.cancels ?? new RequestRegistry(),
    sessions: parts.sessions ?? new MemorySessionStore(),
    replay: parts.replay ?? new EventStore(),
    tasks: parts.tasks ?? new MemoryTaskStore(),
    proofs: parts.proofs ?? new MemoryProofStore(),
    rates: parts.rates ?? new MemoryRateStore(),
    ...(parts.events && { events: parts.events }),
    ...(parts.eventSubscriptions && { eventSubscriptions: parts.eventSubscriptions }),
    shared: parts.shared === true,
  };
}

export type { AnswerRoute } from './answers.js';
export type { BusEvent, NotificationBus } from './bus.js';
export type { Abortable, CancelRoute } from './cancels.js';
export type { ReplayCursor, ReplayStore, ReplayWriter, StreamReader } from './replay.js';
export type { ProofLimits, ProofStore, ProofVerdict } from './proofs.js';
export type { RateStore } from './rates.js';
export type { Bucket, RateLimits } from './token-bucket.js';
export type { SessionPatch, SessionState, SessionStore } from './sessions.js';
export { MemoryBus, PendingRequests, RequestRegistry, EventStore, MemorySessionStore, MemoryProofStore, MemoryRateStore };
