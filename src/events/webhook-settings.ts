/**
 * Webhook delivery as `events/subscribe` sees it: the engine that verifies endpoints and delivers
 * (src/events/webhooks/, `createWebhookEngine()`), and the bounds on the subscription records kept here.
 */
import { intOption, type IntLimits } from '../option-checks.js';
import type { SubscriptionStore } from '../state/event-subscriptions.js';

/** Whom a delivery goes to: a subscription's id, principal, callback and signing secrets (newest first). */
export interface WebhookTarget {
  subscriptionId: string;
  principal: string;
  url: string;
  secrets: readonly string[];
}

/** The delivery engine, as src/events/webhooks publishes it (structurally: any engine with these powers). */
export interface WebhookEngineLike {
  /** Resolves once the endpoint confirmed intent; rejects with the engine's CallbackEndpointError { reason }, WebhookParamsError or WebhookBoundError. */
  verify(target: WebhookTarget, options?: { keepMs?: number | null }): Promise<void>;
  enqueue(target: WebhookTarget, delivery: { webhookId: string; body: string | object }): Promise<string>;
  status(subscriptionId: string): Promise<object | undefined>;
  reactivate(subscriptionId: string): Promise<void>;
  forget(subscriptionId: string): Promise<void>;
  close(): Promise<void>;
}

export interface WebhookSettings {
  engine: WebhookEngineLike;
  /** Refuses a callback URL no delivery may go to (throws); the engine module's validateCallbackUrl with its egress policy, typically. */
  validateUrl: (url: string) => unknown;
  /** Refuses a malformed `whsec_` secret (throws); the engine module's validateSecret, typically. */
  validateSecret: (secret: string) => unknown;
  /** Where the subscription records are kept. Default: the shared state's (redisState()), else in memory. */
  subscriptions?: SubscriptionStore;
  /** Webhook subscriptions one principal may hold. Default 100. */
  maxSubscriptionsPerPrincipal?: number;
  /** Webhook subscriptions held in all. Default 10,000. */
  maxSubscriptions?: number;
  /** TTL granted when the client names none. Default 1 hour. */
  defaultTtlMs?: number;
  /** Shortest TTL granted (a shorter ask is clamped up). Default 1 minute. */
  minTtlMs?: number;
  /** Longest TTL granted (a longer ask, or `null`, gets it). Default 24 hours. */
  maxTtlMs?: number;
  /** After a refresh rotates the secret, the old one still signs for this long. Default 5 minutes. */
  secretGraceMs?: number;
}

export interface WebhookBounds {
  readonly perPrincipal: number;
  readonly total: number;
  readonly defaultTtlMs: number;
  readonly minTtlMs: number;
  readonly maxTtlMs: number;
  readonly secretGraceMs: number;
}

const EVENTS: IntLimits = { owner: 'Events option' };

export function webhookBounds(settings: WebhookSettings): WebhookBounds {
  if (typeof settings.engine?.verify !== 'function' || typeof settings.engine.enqueue !== 'function') throw new TypeError('Events option webhooks.engine must be a webhook engine (createWebhookEngine())');
  if (typeof settings.validateUrl !== 'function' || typeof settings.validateSecret !== 'function') throw new TypeError('Events option webhooks needs validateUrl and validateSecret');
  const minTtlMs = intOption(settings, 'minTtlMs', 60_000, EVENTS);
  const maxTtlMs = intOption(settings, 'maxTtlMs', 86_400_000, EVENTS);
  if (minTtlMs > maxTtlMs) throw new TypeError('Events option webhooks.minTtlMs must not exceed maxTtlMs');
  const defaultTtlMs = Math.min(Math.max(intOption(settings, 'defaultTtlMs', 3_600_000, EVENTS), minTtlMs), maxTtlMs);
  return {
    perPrincipal: intOption(settings, 'maxSubscriptionsPerPrincipal', 100, EVENTS),
    total: intOption(settings, 'maxSubscriptions', 10_000, EVENTS),
    defaultTtlMs, minTtlMs, maxTtlMs,
    secretGraceMs: intOption(settings, 'secretGraceMs', 300_000, { ...EVENTS, min: 0 }),
  };
}
