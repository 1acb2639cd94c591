/**
 * SHA-256 and HMAC-SHA256, synchronous once loaded, on every runtime: `node:crypto` where the
 * runtime has it (Node, Bun, Deno, Workers with nodejs_compat), else the plain-JS implementation in
 * sha256.ts (Workers without flags). Web Crypto is not used: it is asynchronous only, and the core
 * signs session ids and MRTR state synchronously on its hot path.
 *
 * Nothing is loaded at start-up (a cold-start cost most servers never need): `loadCrypto()` must have
 * resolved before `hashing()` is called; the core waits for it where needed.
 */
import { hmacSha256Bytes, sha256Bytes } from './sha256.js';

export interface Hashing {
  sha256(text: string): Uint8Array;
  /** SHA-256 of raw bytes (skill file digests). */
  sha256Of(data: Uint8Array): Uint8Array;
  hmacSha256(key: Uint8Array | string, text: string): Uint8Array;
}

type NodeCrypto = typeof import('node:crypto');

const encoder = new TextEncoder();
const bytes = (value: Uint8Array | string): Uint8Array => (typeof value === 'string' ? encoder.encode(value) : value);

const portable: Hashing = {
  sha256: (text) => sha256Bytes(encoder.encode(text)),
  sha256Of: (data) => sha256Bytes(data),
  hmacSha256: (key, text) => hmacSha256Bytes(bytes(key), encoder.encode(text)),
};

const fromNode = (crypto: NodeCrypto): Hashing => ({
  sha256: (text) => crypto.createHash('sha256').update(text).digest(),
  sha256Of: (data) => crypto.createHash('sha256').update(data).digest(),
  hmacSha256: (key, text) => crypto.createHmac('sha256', key).update(text).digest(),
});

let loaded: Hashing | undefined;
let loading: Promise<unknown> | undefined;

/** Resolves once hashing is available; undefined when it already is (the usual case, no promise). */
export function loadCrypto(): Promise<unknown> | undefined {
  if (loaded !== undefined) return undefined;
  const host = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } };
  try {
    const crypto = host.process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
    if (crypto?.createHmac) {
      loaded = fromNode(crypto);
      return undefined;
    }
  } catch {
    // fall through to the import
  }
  return (loading ??= import('node:crypto').then(
    (crypto) => void (loaded = fromNode(crypto)),
    () => void (loaded = portable),
  ));
}

export function hashing(): Hashing {
  if (loaded === undefined) throw new Error('hashing is not loaded yet: await loadCrypto() first');
  return loaded;
}

/** Constant-time equality of two MACs. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** For tests: the plain-JS implementation, whatever the runtime has. */
export const portableHashing = portable;
