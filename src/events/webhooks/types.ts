/**
 * The shapes the events layer and the webhook engine share. The engine knows nothing of event types,
 * arguments or cursors: it takes a target and a JSON body, proves the endpoint's intent, signs, sends,
 * retries, and reports categories.
 */
import type { FailureCategory } from './errors.js';

/** Where one subscription's deliveries go, and how they are signed. */
export interface WebhookTarget {
  /** The subscription id (sent as `X-MCP-Subscription-Id`; also the unit of status and suspension). */
  subscriptionId: string;
  /** The authenticated principal (verification is cached per principal and url; bounds are per principal). */
  principal: string;
  /** The callback URL exactly as the client gave it, query string included (it is never rewritten). */
  url: string;
  /**
   * The client's `whsec_` secrets, newest first. Every one signs each attempt (rotation grace: the
   * events layer keeps the old one here for its grace window, then drops it).
   */
  secrets: readonly string[];
}

/** One message to one subscription. */
export interface Delivery {
  /**
   * `webhook-id`: the occurrence's `eventId` for an event, `msg_<type>_<random>` for a control envelope
   * (see `controlEnvelope`). With the subscription id it is the deduplication key: the same pair
   * enqueued twice (on any instance sharing the store) is delivered once.
   */
  webhookId: string;
  /** The JSON body: an EventOccurrence (with its watermark `cursor`) or a control envelope. A string is sent as is. */
  body: string | object;
}

/** `deliveryStatus` of an `events/subscribe` refresh: category strings only, never an endpoint's answer. */
export interface DeliveryStatus {
  /** False while delivery is suspended after sustained failure (a refresh calls `reactivate`). */
  active: boolean;
  lastDeliveryAt: string | null;
  lastError: FailureCategory | null;
  /** Since when attempts have failed without a success in between (absent while healthy). */
  failedSince?: string;
}

/** What `enqueue` did. Anything but 'queued' and 'duplicate' means this message will not be sent. */
export type EnqueueOutcome =
  /** Accepted: it will be attempted (at least once, by exactly one instance sharing the store). */
  | 'queued'
  /** This (subscription, webhookId) was already queued or delivered recently: nothing new to send. */
  | 'duplicate'
  /** The endpoint's intent is not confirmed for this (principal, url): call `verify` first. */
  | 'unverified'
  /** A pending-delivery bound is full (see `WebhookEngineOptions.limits`); the events layer may send a `gap` later. */
  | 'limit';

/** Why a delivery ended without a 2xx and will not be retried. */
export interface DeliveryGiveUp {
  target: WebhookTarget;
  webhookId: string;
  /**
   * 'gone' (410: the receiver does not want this delivery), 'too_large' (413), or the category of the
   * last failure once retries are exhausted.
   */
  reason: 'gone' | 'too_large' | FailureCategory;
}

/** Time, injectable so tests drive retries and backoff without waiting. */
export interface Clock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
