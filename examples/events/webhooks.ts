/**
 * The example's webhook delivery (minimcp/events): retries after about 1 s, then doubling (two land
 * within 20 s; the library's defaults are longer), loopback callbacks only with
 * EVENTS_ALLOW_LOOPBACK=1 (logged loudly), and with REDIS_URL the deliveries and their claims on
 * Redis, so each occurrence is delivered once per cluster.
 */
import { eventWebhooks, redisDeliveryStore } from '../../src/events/index.js';
import type { WebhookSettings } from '../../src/events/webhook-settings.js';

export async function exampleWebhooks(allowLoopback: boolean): Promise<WebhookSettings> {
  if (allowLoopback) {
    console.warn('!!! EVENTS_ALLOW_LOOPBACK=1: webhook callbacks may go to http://127.0.0.1 (development only, never in production) !!!');
  }
  const url = process.env.REDIS_URL;
  const store = url ? await redisDeliveryStore({ url, prefix: `${process.env.MINIMCP_REDIS_PREFIX ?? 'mcp:'}wh:` }) : undefined;
  return eventWebhooks({
    egress: { allowLoopback },
    retry: { firstDelayMs: 1_000, factor: 2 },
    ...(store && { store }),
  });
}
