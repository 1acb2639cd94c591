/**
 * The webhook engine: verification, signing, egress, retries, status, on a DeliveryStore (one
 * process in memory, or a cluster on Redis).
 */
import type { EgressPolicy } from './egress.js';
import type { DeliveryStore, PendingLimits, SuspensionPolicy } from './store.js';
import type { Clock, Delivery, DeliveryGiveUp, DeliveryStatus, EnqueueOutcome, WebhookTarget } from './types.js';

export interface WebhookEngine {
  /**
   * Confirms the endpoint's intent for (target.principal, target.url) unless already cached: a signed
   * `{"type":"verification","challenge"}` POST that must be answered 2xx with the same challenge.
   * Throws CallbackEndpointError { reason }, WebhookParamsError('delivery.url') for a URL the policy
   * refuses, or WebhookBoundError('verification.perHostPerMinute') when that host was asked too often.
   * `keepMs: null` keeps the verification as long as the subscription (no-expiry subscriptions).
   */
  verify(target: WebhookTarget, options?: { keepMs?: number | null }): Promise<void>;
  /** Queues one signed POST (see index.ts for the contract). */
  enqueue(target: WebhookTarget, delivery: Delivery): Promise<EnqueueOutcome>;
  /** `deliveryStatus` for a refresh, or undefined when nothing was attempted yet. */
  status(subscriptionId: string): Promise<DeliveryStatus | undefined>;
  /** A refresh: a suspended subscription becomes active and its pending deliveries resume. */
  reactivate(subscriptionId: string): Promise<void>;
  /** Unsubscribe or expiry: its pending deliveries and status are dropped. */
  forget(subscriptionId: string): Promise<void>;
  /** Stops sending (attempts in flight finish or time out; their jobs stay pending for another instance). */
  close(): Promise<void>;
}

export interface WebhookEngineOptions {
  /** Where callbacks may go (allowlist, loopback in development, resolver). */
  egress?: EgressPolicy;
  /** Extra CA certificates trusted for callbacks (PEM), beside the system's. */
  ca?: string | readonly string[];
  /** Pending deliveries and status. Default: in this process (memoryDeliveryStore()); a cluster passes redisDeliveryStore(). */
  store?: DeliveryStore;
  /** Retries: `attempts` in all (default 5), the first retry after `firstDelayMs` (default 30 s), each wait `factor` times the last (default 2), no attempt after `windowMs` (default 15 min). */
  retry?: Partial<{ attempts: number; firstDelayMs: number; factor: number; windowMs: number }>;
  /** One attempt's whole time, connect to last byte read (default 5 s). */
  timeoutMs?: number;
  /** Bytes of an endpoint's answer read at most (the challenge is short; the rest is never read). Default 4 KiB. */
  maxResponseBytes?: number;
  /** Largest body accepted by `enqueue`. Default 256 KiB (SEP-3415 delivery profile). */
  maxBodyBytes?: number;
  /** Pending deliveries kept, per principal and in all (count and body bytes). Defaults: 1,000 / 8 MiB per principal, 100,000 / 256 MiB in all. */
  limits?: Partial<PendingLimits>;
  /** How long a delivered (subscription, webhookId) is remembered so a second enqueue is a duplicate. Default 1 h. */
  dedupMs?: number;
  /** Attempts in flight at once on this instance. Default 64. */
  concurrency?: number;
  /** Suspension after sustained failure (default: >95% failed over 60 min with ≥100 attempts); false never suspends. */
  suspension?: Partial<SuspensionPolicy> | false;
  /** Verification: how long a success is cached per (principal, url) (default 24 h), POSTs per host per minute (default 10). */
  verification?: Partial<{ ttlMs: number; perHostPerMinute: number }>;
  /** URL prefixes verified by the operator (the spec's allowlist path): no challenge is sent to them. */
  preverifiedUrls?: readonly string[];
  /** A delivery ended without success and will not be retried. */
  onGiveUp?: (giveUp: DeliveryGiveUp) => void;
  /** A subscription was suspended after sustained failure (a refresh reactivates it). */
  onSuspended?: (subscriptionId: string) => void;
  /** Where warnings go (allowLoopback on, store failures). Default: stderr. */
  log?: (message: string) => void;
  /** Time for scheduling (tests). Default: the real clock. */
  clock?: Clock;
  /** How often the store is asked for due deliveries enqueued elsewhere or due again (default 500 ms). */
  pollMs?: number;
  /** How long a claimed delivery stays hidden from other instances (default 30 s; must exceed `timeoutMs`). */
  leaseMs?: number;
}

export function createWebhookEngine(_options: WebhookEngineOptions = {}): WebhookEngine {
  throw new Error('minimcp: the webhook engine is being built (interface only in this commit)');
}
