/**
 * A subscription's delivery health: the last success and failure, and a rolling failure rate over
 * `windowMs` in twelve buckets, for suspension "on a sustained failure rate over a meaningful sample,
 * not a fixed failure count" (SEP-3415, e.g. >95% over 60 min with ≥100 attempts).
 */
import type { FailureCategory } from './errors.js';
import type { SuspensionPolicy } from './store.js';
import type { DeliveryStatus } from './types.js';

export const BUCKETS = 12;

export interface Health {
  lastDeliveryAt: number | null;
  lastError: FailureCategory | null;
  failedSince: number | null;
  suspended: boolean;
  /** Per bucket index: [bucket number, attempts, failures]. */
  buckets: Array<[number, number, number]>;
}

export function newHealth(): Health {
  return { lastDeliveryAt: null, lastError: null, failedSince: null, suspended: false, buckets: [] };
}

/** Counts one attempt; returns true when this attempt suspends the subscription. */
export function recordAttempt(health: Health, now: number, failure: FailureCategory | null, policy: SuspensionPolicy | false): boolean {
  if (failure === null) {
    health.lastDeliveryAt = now;
    health.lastError = null;
    health.failedSince = null;
  } else {
    health.lastError = failure;
    health.failedSince ??= now;
  }
  if (policy === false) return false;
  const width = policy.windowMs / BUCKETS;
  const bucket = Math.floor(now / width);
  const slot = bucket % BUCKETS;
  const row = health.buckets[slot];
  if (row === undefined || row[0] !== bucket) health.buckets[slot] = [bucket, 1, failure ? 1 : 0];
  else (row[1]++, failure && row[2]++);
  let attempts = 0;
  let failures = 0;
  for (const entry of health.buckets) {
    if (entry === undefined || entry[0] <= bucket - BUCKETS) continue;
    attempts += entry[1];
    failures += entry[2];
  }
  if (health.suspended || attempts < policy.minAttempts || failures / attempts <= policy.failureRate) return false;
  health.suspended = true;
  return true;
}

export function toStatus(health: Health): DeliveryStatus {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const status: DeliveryStatus = { active: !health.suspended, lastDeliveryAt: iso(health.lastDeliveryAt), lastError: health.lastError };
  if (health.failedSince !== null) status.failedSince = iso(health.failedSince)!;
  return status;
}
