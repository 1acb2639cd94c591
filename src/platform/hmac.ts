/**
 * SHA-256 and HMAC-SHA256 with Web Crypto (`crypto.subtle`), present on every runtime we support
 * (Node >= 20, Bun, Deno, Cloudflare Workers without compatibility flags), so nothing here needs
 * `node:crypto`. Web Crypto is asynchronous, so these are too.
 */
const encoder = new TextEncoder();

export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

/** An HMAC-SHA256 key; a string secret is used as its UTF-8 bytes. */
export interface HmacKey {
  sign(text: string): Promise<Uint8Array>;
  /** Constant-time check (Web Crypto's verify) of a MAC over `text`. */
  verify(mac: Uint8Array<ArrayBuffer>, text: string): Promise<boolean>;
}

export function hmacKey(secret: Uint8Array | string): HmacKey {
  const raw = typeof secret === 'string' ? encoder.encode(secret) : new Uint8Array(secret); // a copy: the caller's array may change
  let key: Promise<CryptoKey> | undefined;
  const load = (): Promise<CryptoKey> =>
    (key ??= crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']));
  return {
    sign: async (text) => new Uint8Array(await crypto.subtle.sign('HMAC', await load(), encoder.encode(text))),
    verify: async (mac, text) => crypto.subtle.verify('HMAC', await load(), mac, encoder.encode(text)),
  };
}

/** A fresh 32-byte secret. */
export const randomSecret = (): Uint8Array => crypto.getRandomValues(new Uint8Array(32));
