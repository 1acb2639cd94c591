/**
 * The example's webhook delivery: the engine of src/events/webhooks with retries after about 1 s,
 * then doubling, and loopback callbacks allowed only with EVENTS_ALLOW_LOOPBACK=1 (logged loudly).
 * Undefined until the engine is available: the example then offers poll and push only.
 */
import type { WebhookSettings } from '../../src/events/webhook-settings.js';

export async function exampleWebhooks(_allowLoopback: boolean): Promise<WebhookSettings | undefined> {
  return undefined;
}
