/**
 * The webhook engine: verification, signing, egress, retries, status, on a DeliveryStore (one
 * process in memory, or a cluster on Redis).
 */
import { rootCertificates } from 'node:tls';
import type { Attempts } from './attempt.js';
import type { EgressPolicy } from './egress.js';
import { WebhookParamsError } from './errors.js';
import { validateSecret } from './secret.js';
import { memoryDeliveryStore } from './memory-store.js';
import { createPump } from './pump.js';
import type { PostOptions } from './post.js';
import type { DeliveryStore, Job, PendingLimits, SuspensionPolicy } from './store.js';
import type { Clock, Delivery, DeliveryGiveUp, DeliveryStatus, EnqueueOutcome, WebhookTarget } from './types.js';
import { isPreverified, type VerifyContext, verifyEndpoint } from './verify.js';

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
  /**
   * Verification: how long a success is cached per (principal, url) (default 24 h), requests per host
   * per minute (default 10), and whether a receiver document at the callback's origin
   * (`/.well-known/mcp-webhook-receiver.json`) may stand in for the challenge (default false).
   */
  verification?: Partial<{ ttlMs: number; perHostPerMinute: number; wellKnown: boolean }>;
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

const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => {
    const timer = setTimeout(run, ms);
    timer.unref?.();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export const DEFAULT_LIMITS: PendingLimits = { perPrincipal: 1_000, bytesPerPrincipal: 8 * 1024 * 1024, total: 100_000, bytesTotal: 256 * 1024 * 1024 };
export const DEFAULT_SUSPENSION: SuspensionPolicy = { windowMs: 3_600_000, minAttempts: 100, failureRate: 0.95 };

export function createWebhookEngine(options: WebhookEngineOptions = {}): WebhookEngine {
  const { clock, store, verifyContext, attempts, limits, leaseMs } = settings(options);
  const preverified = verifyContext.preverified;
  const maxBodyBytes = options.maxBodyBytes ?? 256 * 1024;
  const pump = createPump(attempts, { concurrency: options.concurrency ?? 64, pollMs: options.pollMs ?? 500, leaseMs });
  attempts.wakeAt = (at) => pump.wakeAt(at);
  return {
    verify: (target, verifyOptions) => verifyEndpoint(verifyContext, target, verifyOptions?.keepMs),
    async enqueue(target, delivery) {
      const body = typeof delivery.body === 'string' ? delivery.body : JSON.stringify(delivery.body);
      const bytes = Buffer.byteLength(body);
      if (bytes > maxBodyBytes) throw new WebhookParamsError('body', `A webhook delivery body may be at most ${maxBodyBytes} bytes, not ${bytes}`);
      if (target.subscriptionId === '' || target.subscriptionId.includes('\u0000')) throw new TypeError('webhooks: a subscription id must be non-empty, without NUL');
      if (target.secrets.length === 0) validateSecret(undefined); // a delivery nobody can verify is refused here
      for (const secret of target.secrets) validateSecret(secret);
      const now = clock.now();
      if (!isPreverified(target.url, preverified) && !(await store.isVerified(target.principal, target.url, now))) return 'unverified';
      const job: Job = { key: `${target.subscriptionId} ${delivery.webhookId}`, target, webhookId: delivery.webhookId, body, bytes, attempts: 0, since: now };
      const outcome = await store.add(job, limits, attempts.dedupMs);
      if (outcome === 'queued') pump.kick();
      return outcome;
    },
    status: (subscriptionId) => store.status(subscriptionId),
    async reactivate(subscriptionId) {
      await store.reactivate(subscriptionId, clock.now());
      pump.kick();
    },
    forget: (subscriptionId) => store.forget(subscriptionId),
    async close() {
      await pump.stop();
      if (options.store === undefined) await store.close();
    },
  };
}

/** The options with their defaults, as the parts need them. */
function settings(options: WebhookEngineOptions) {
  const clock = options.clock ?? realClock;
  const log = options.log ?? ((message: string) => console.warn(`[minimcp/events] ${message}`));
  const egress = options.egress ?? {};
  if (egress.allowLoopback) log('webhook callbacks may reach loopback addresses over plain http (allowLoopback): development only, never in production');
  const timeoutMs = options.timeoutMs ?? 5_000;
  const leaseMs = options.leaseMs ?? 30_000;
  if (leaseMs <= timeoutMs) throw new RangeError('createWebhookEngine: leaseMs must exceed timeoutMs (a claimed delivery would be sent twice)');
  const store = options.store ?? memoryDeliveryStore();
  const extraCa = options.ca === undefined ? undefined : typeof options.ca === 'string' ? [options.ca] : options.ca;
  const post: PostOptions = {
    policy: egress,
    ca: extraCa && [...rootCertificates, ...extraCa], // `ca` replaces the system roots: keep them
    timeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? 4_096,
  };
  const verifyContext: VerifyContext = {
    store,
    post,
    now: () => clock.now(),
    ttlMs: options.verification?.ttlMs ?? 86_400_000,
    perHostPerMinute: options.verification?.perHostPerMinute ?? 10,
    preverified: options.preverifiedUrls ?? [],
    receiverDocuments: options.verification?.wellKnown ? new Map() : undefined,
  };
  const attempts: Attempts = {
    store,
    post,
    clock,
    dedupMs: options.dedupMs ?? 3_600_000,
    retry: { attempts: 5, firstDelayMs: 30_000, factor: 2, windowMs: 900_000, ...options.retry },
    suspension: options.suspension === false ? false : { ...DEFAULT_SUSPENSION, ...options.suspension },
    onGiveUp: options.onGiveUp ?? (() => {}),
    onSuspended: options.onSuspended ?? (() => {}),
    wakeAt: () => {},
    log,
  };
  return { clock, store, verifyContext, attempts, limits: { ...DEFAULT_LIMITS, ...options.limits }, leaseMs };
}
