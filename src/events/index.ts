/**
 * minimcp/events: webhook delivery for `mcp.event()` types in one call. It builds the delivery engine
 * (src/events/webhooks/, also minimcp/events/webhooks) and hands `configureEvents({ webhooks })` the
 * engine with the URL and secret checks of the same egress policy. A subpath of its own: the engine
 * uses node:dns, node:net and node:https, which the main entry never loads.
 *
 *   mcp.configureEvents({ webhooks: eventWebhooks({ store: await redisDeliveryStore({ url }) }) });
 */
import { createWebhookEngine, validateCallbackUrl, validateSecret, type WebhookEngineOptions } from './webhooks/index.js';
import type { WebhookSettings } from './webhook-settings.js';

export type EventWebhooksOptions = WebhookEngineOptions & Omit<WebhookSettings, 'engine' | 'validateUrl' | 'validateSecret'>;

/** The engine and the checks `events/subscribe` runs before it: one egress policy for both. */
export function eventWebhooks(options: EventWebhooksOptions = {}): WebhookSettings {
  const { subscriptions, maxSubscriptionsPerPrincipal, maxSubscriptions, defaultTtlMs, minTtlMs, maxTtlMs, secretGraceMs, ...engineOptions } = options;
  const engine = createWebhookEngine(engineOptions);
  const limits = { maxSubscriptionsPerPrincipal, maxSubscriptions, defaultTtlMs, minTtlMs, maxTtlMs, secretGraceMs };
  const settings: WebhookSettings = { engine, validateUrl: (url) => validateCallbackUrl(url, options.egress), validateSecret: (secret) => validateSecret(secret), ...(subscriptions && { subscriptions }) };
  for (const [name, value] of Object.entries(limits)) if (value !== undefined) (settings as unknown as Record<string, number>)[name] = value;
  return settings;
}

export type { WebhookSettings } from './webhook-settings.js';
export { redisDeliveryStore, memoryDeliveryStore, type EgressPolicy, type WebhookEngineOptions } from './webhooks/index.js';
