/**
 * The client's signing secret: `whsec_` then standard base64 of 24–64 random bytes (SEP-3415 "Secret
 * generation"). The server never makes one; it only checks and decodes what the client sent.
 */
import { WebhookParamsError } from './errors.js';

const PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;

/** Throws WebhookParamsError('delivery.secret') unless `secret` is a well-formed `whsec_` secret of 24–64 bytes. */
export function validateSecret(secret: unknown): asserts secret is string {
  decodeSecret(secret);
}

/** The HMAC key bytes of a valid secret (throws as validateSecret does). */
export function decodeSecret(secret: unknown): Buffer {
  // 64 bytes are 88 base64 characters; anything much longer is refused before decoding it.
  if (typeof secret !== 'string' || !secret.startsWith(PREFIX) || secret.length > PREFIX.length + 100) {
    throw new WebhookParamsError('delivery.secret', 'delivery.secret must be "whsec_" followed by base64 of 24 to 64 bytes');
  }
  const encoded = secret.slice(PREFIX.length);
  if (encoded.length === 0 || !BASE64.test(encoded)) {
    throw new WebhookParamsError('delivery.secret', 'delivery.secret must be "whsec_" followed by standard base64');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    throw new WebhookParamsError('delivery.secret', `delivery.secret must decode to ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes, not ${key.length}`);
  }
  return key;
}
