/**
 * Webhook delivery as `events/subscribe` sees it: the engine that verifies endpoints and delivers
 * (src/events/webhooks/, its interface as agreed), and the bounds on the subscription records kept here.
 */

/** Whom a delivery goes to: a subscription's id, principal, callback and signing secrets (newest first). */
export interface WebhookTarget {
  subscriptionId: string;
  principal: string;
  url: string;
  secrets: string[];
}

/** The delivery engine: endpoint verification, signed delivery with retries, status per subscription. */
export interface WebhookEngineLike {
  /** Resolves once the endpoint confirmed intent; rejects with the CallbackEndpointError to answer. */
  verify(target: WebhookTarget): Promise<void>;
  enqueue(target: WebhookTarget, delivery: { webhookId: string; body: string }): void;
  status(subscriptionId: string): unknown;
  close(): Promise<void>;
}

export interface WebhookSettings {
  engine: WebhookEngineLike;
  /** Refuses a callback URL the server may not call (an McpError -32602); the engine's validateCallbackUrl by default. */
  validateUrl?: (url: string) => void;
  /** Refuses a malformed secret (an McpError -32602); the engine's validateSecret by default. */
  validateSecret?: (secret: string) => void;
  /** Webhook subscriptions one principal may hold. Default 100. */
  maxSubscriptionsPerPrincipal?: number;
  /** Webhook subscriptions held in all. Default 10,000. */
  maxSubscriptions?: number;
  /** TTL granted when the client names none. Default 1 hour. */
  defaultTtlMs?: number;
  /** Shortest TTL granted (a shorter ask is clamped up). Default 1 minute. */
  minTtlMs?: number;
  /** Longest TTL granted (a longer or a null ask gets it, unless the log is shared and no expiry is allowed). Default 24 hours. */
  maxTtlMs?: number;
  /** After a refresh rotates the secret, the old one still signs for this long. Default 5 minutes. */
  secretGraceMs?: number;
}
