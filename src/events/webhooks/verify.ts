/**
 * Endpoint verification (SEP-3415 "Endpoint verification"): before any delivery to (principal, url),
 * a signed `verification` envelope with a single-use nonce; the endpoint proves intent by answering
 * 2xx with `{"challenge": <nonce>}`, compared in constant time. Cached per (principal, url) in the
 * store (so every instance of a cluster sees it), and limited per destination host.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { controlEnvelope } from './envelope.js';
import { bareHost, validateCallbackUrl } from './egress.js';
import { CallbackEndpointError, WebhookBoundError } from './errors.js';
import { post, type PostOptions, statusCategory } from './post.js';
import { validateSecret } from './secret.js';
import { signedHeaders } from './sign.js';
import type { DeliveryStore } from './store.js';
import type { WebhookTarget } from './types.js';
import { type ReceiverDocuments, receiverDocumentCovers } from './well-known.js';

export interface VerifyContext {
  store: DeliveryStore;
  post: PostOptions;
  now: () => number;
  ttlMs: number;
  perHostPerMinute: number;
  preverified: readonly string[];
  /** Receiver documents by origin, when that verification path is on (`verification.wellKnown`). */
  receiverDocuments: ReceiverDocuments | undefined;
}

export async function verifyEndpoint(context: VerifyContext, target: WebhookTarget, keepMs: number | null | undefined): Promise<void> {
  const url = validateCallbackUrl(target.url, context.post.policy);
  if (target.secrets.length === 0) validateSecret(undefined);
  for (const secret of target.secrets) validateSecret(secret);
  const now = context.now();
  const until = keepMs === null ? null : now + (keepMs ?? context.ttlMs);
  const { store } = context;
  if (isPreverified(target.url, context.preverified) || (await store.isVerified(target.principal, target.url, now))) {
    await store.markVerified(target.principal, target.url, until); // a refresh keeps it
    return;
  }
  if (!(await store.takeVerificationSlot(bareHost(url), now, 60_000, context.perHostPerMinute))) {
    throw new WebhookBoundError('verification.perHostPerMinute', `At most ${context.perHostPerMinute} verification requests per minute go to one host`);
  }
  if (context.receiverDocuments && (await receiverDocumentCovers(url, context.post, context.receiverDocuments, now))) {
    await store.markVerified(target.principal, target.url, until); // recorded per (principal, url) all the same
    return;
  }
  const challenge = randomBytes(24).toString('base64url');
  const { webhookId, body } = controlEnvelope('verification', { challenge });
  const text = JSON.stringify(body);
  const result = await post(url, signedHeaders(target.subscriptionId, webhookId, text, target.secrets, now), text, context.post);
  if ('failed' in result) throw new CallbackEndpointError(result.failed);
  if (result.status < 200 || result.status > 299) throw new CallbackEndpointError(statusCategory(result.status));
  if (!echoes(result.body, challenge)) throw new CallbackEndpointError('challenge_failed');
  await store.markVerified(target.principal, target.url, until);
}

/**
 * Whether `url` is under an operator-verified prefix. A prefix that does not end in `/` must end at a
 * boundary of the URL: `https://hooks.example.com` covers `https://hooks.example.com/a`, not
 * `https://hooks.example.com.evil.test/`.
 */
export function isPreverified(url: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => url.startsWith(prefix) && (prefix.endsWith('/') || url.length === prefix.length || '/?#:'.includes(url[prefix.length]!)));
}

/** Whether the answer is a JSON object whose `challenge` equals ours (constant time). */
function echoes(body: Buffer, challenge: string): boolean {
  let answer: unknown;
  try {
    answer = JSON.parse(body.toString('utf8'));
  } catch {
    return false;
  }
  const echoed = typeof answer === 'object' && answer !== null ? (answer as { challenge?: unknown }).challenge : undefined;
  if (typeof echoed !== 'string') return false;
  const expected = Buffer.from(challenge);
  const given = Buffer.from(echoed);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
