/**
 * Standard Webhooks v1 signing: `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), one
 * per secret, space-separated (rotation). node:crypto does it in a few lines; the `standardwebhooks`
 * package verifies it in the tests, so the two cannot drift apart.
 */
import { createHmac } from 'node:crypto';
import { decodeSecret } from './secret.js';

/** The three Standard Webhooks headers and `X-MCP-Subscription-Id`, signed now. */
export function signedHeaders(subscriptionId: string, webhookId: string, body: string, secrets: readonly string[], nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const signatures = secrets.map((secret) => {
    const mac = createHmac('sha256', decodeSecret(secret)).update(`${webhookId}.${timestamp}.`).update(body).digest('base64');
    return `v1,${mac}`;
  });
  return {
    'content-type': 'application/json',
    'webhook-id': webhookId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
    'x-mcp-subscription-id': subscriptionId,
  };
}
