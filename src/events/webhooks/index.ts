/**
 * Outbound webhook delivery for the events extension (SEP-3415, "Webhook"): the part that talks to
 * the outside world on a client's behalf. The events layer owns subscriptions (key, id, TTL, cursors,
 * which occurrence matches which subscription); this engine owns everything after "send this body to
 * that subscription":
 *
 *   const webhooks = createWebhookEngine({ onGiveUp, store: await redisDeliveryStore({ url }) });
 *   // events/subscribe (after validateCallbackUrl and validateSecret on the params):
 *   await webhooks.verify(target);            // throws CallbackEndpointError { reason } on failure
 *   const deliveryStatus = await webhooks.status(target.subscriptionId); // on a refresh
 *   await webhooks.reactivate(target.subscriptionId);                    // a refresh un-suspends
 *   // an occurrence matched the subscription:
 *   await webhooks.enqueue(target, { webhookId: occurrence.eventId, body: occurrence });
 *   // a gap or a termination:
 *   await webhooks.enqueue(target, controlEnvelope('gap', { cursor }));
 *   // events/unsubscribe or expiry:
 *   await webhooks.forget(target.subscriptionId);
 *
 * Contract for the events layer:
 * - `verify` must succeed for (principal, url) before `enqueue` accepts anything for it ('unverified'
 *   otherwise). It is cached per (principal, url) for `verification.ttlMs` after the last call, or
 *   forever with `{ keepMs: null }` (no-expiry subscriptions: verification persists with them in the
 *   shared store). A URL under a `preverifiedUrls` prefix needs no challenge (the spec's allowlist), nor,
 *   with `verification.wellKnown`, one its origin's receiver document names.
 * - The verification POST carries `X-MCP-Subscription-Id: target.subscriptionId` (receivers route on
 *   it), so derive the id before calling `verify`.
 * - `enqueue` resolves with an outcome and rejects only with WebhookParamsError('body') for a body over
 *   `maxBodyBytes` (256 KiB), WebhookParamsError('delivery.secret') for a target without a valid
 *   secret, or when a shared store cannot be reached. Deliveries are at least once;
 *   with a shared store, once per cluster. Enqueue a fan-out concurrently (Promise.all): on Redis the
 *   commands are pipelined. Control envelopes (`gap`, `terminated`) go through `enqueue` too.
 * - On a cluster every instance must use the same shared store (`redisDeliveryStore`, same prefix):
 *   verification, deduplication, pending deliveries and health live there. With a memory store per
 *   instance, an instance that did not run `verify` answers 'unverified'.
 * - `onGiveUp` reports 410 ('gone'), 413 ('too_large') and exhausted retries. The SEP text says a 410
 *   rejects that delivery "without affecting the subscription itself"; the events layer may still
 *   choose to end the subscription (the AI SDK's receiver answers 410 once its subscription expired).
 * - `status` gives `deliveryStatus` (category strings only) or undefined when nothing was attempted.
 * - Errors: WebhookParamsError → InvalidParams (-32602); CallbackEndpointError → CallbackEndpointError
 *   with `data: { reason }`; WebhookBoundError → the events layer's bound error (it names the option).
 */
export { createWebhookEngine, type WebhookEngine, type WebhookEngineOptions } from './engine.js';
export { controlEnvelope } from './envelope.js';
export { validateCallbackUrl, type EgressPolicy } from './egress.js';
export { validateSecret } from './secret.js';
export { CallbackEndpointError, WebhookBoundError, WebhookParamsError, type FailureCategory } from './errors.js';
export type { Clock, Delivery, DeliveryGiveUp, DeliveryStatus, EnqueueOutcome, WebhookTarget } from './types.js';
export type { DeliveryStore } from './store.js';
export { memoryDeliveryStore } from './memory-store.js';
export { redisDeliveryStore, type RedisDeliveryStoreOptions } from './redis-store.js';
