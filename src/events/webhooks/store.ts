/**
 * Where pending deliveries, delivery health and verified endpoints live: in memory for one process
 * (memory-store.ts), on Redis for a cluster (redis-store.ts). Every operation that must be atomic
 * across instances (enqueue with dedup and bounds, claim) is one call here.
 */
import type { FailureCategory } from './errors.js';
import type { DeliveryStatus, WebhookTarget } from './types.js';

/** One pending delivery. `key` is `<subscriptionId> <webhookId>`: the deduplication and claim key. */
export interface Job {
  key: string;
  target: WebhookTarget;
  webhookId: string;
  /** The serialized JSON body (signed byte for byte). */
  body: string;
  /** Its UTF-8 length: what the byte bounds count. */
  bytes: number;
  /** Attempts made so far. */
  attempts: number;
  /** When it was first enqueued (ms): bounds the retry window. */
  since: number;
}

export interface PendingLimits {
  perPrincipal: number;
  bytesPerPrincipal: number;
  total: number;
  bytesTotal: number;
}

export interface SuspensionPolicy {
  windowMs: number;
  minAttempts: number;
  failureRate: number;
}

export interface DeliveryStore {
  /** Adds a job unless its key is pending or was finished within `dedupMs`, or a bound would be passed. Due at once. */
  add(job: Job, limits: PendingLimits, dedupMs: number): Promise<'queued' | 'duplicate' | 'limit'>;
  /**
   * Up to `max` due jobs (due ≤ now), each hidden from every other claimer for `leaseMs` (if the
   * claimer dies, the job is due again when the lease ends). Jobs of a suspended subscription are
   * not returned; they wait (their retry window does not run).
   */
  claim(now: number, leaseMs: number, max: number): Promise<Job[]>;
  /** The job is done (delivered, refused or abandoned): removed, its bytes freed, its key remembered for `dedupMs`. */
  finish(job: Job, dedupMs: number): Promise<void>;
  /** The job failed and will be tried again at `at`, with `attempts` counted. */
  retry(job: Job, at: number): Promise<void>;
  /** One attempt's outcome for the subscription's status; resolves true when this made the subscription suspended. */
  record(subscriptionId: string, now: number, failure: FailureCategory | null, policy: SuspensionPolicy | false): Promise<boolean>;
  status(subscriptionId: string): Promise<DeliveryStatus | undefined>;
  /** Un-suspends (a refresh); pending jobs become due again. */
  reactivate(subscriptionId: string, now: number): Promise<void>;
  /** Drops the subscription's pending jobs and status. */
  forget(subscriptionId: string): Promise<void>;
  /** Whether (principal, url) is verified now. */
  isVerified(principal: string, url: string, now: number): Promise<boolean>;
  /** Records a verification, kept until `until` (ms), or forever with null. */
  markVerified(principal: string, url: string, until: number | null): Promise<void>;
  /** Counts one verification POST to `host` in the current window; resolves false once `max` were sent in it. */
  takeVerificationSlot(host: string, now: number, windowMs: number, max: number): Promise<boolean>;
  close(): Promise<void>;
}
