/** base64url (RFC 4648 §5, no padding) with Web APIs only (btoa/atob), for every runtime. */
const decoder = new TextDecoder('utf-8', { fatal: true });

export function toBase64url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of a base64url string; throws on characters outside the alphabet. */
export function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Decodes base64url to UTF-8 text; throws on bad base64 or bad UTF-8. */
export const textFromBase64url = (text: string): string => decoder.decode(fromBase64url(text));
