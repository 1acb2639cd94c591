/**
 * MRTR `requestState` (2026-07-28): the answers collected so far travel with the client, so the
 * server keeps nothing. The state is attacker-controlled input, so it is HMAC-SHA256 signed and bound
 * to the method, a digest of the params, the principal and an expiry; anything else is -32602.
 *
 * node:crypto (hashing, HMAC) is loaded on the first MRTR round, not at start-up: loading it is a
 * sizeable part of a cold start and most requests never need it. `loadNodeCrypto()` must have
 * resolved before `paramsDigest`, `seal` or `open` run; the dispatcher waits for it when needed.
 */
import { lazyModule } from '../lazy-module.js';
import { invalidParams } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';

const nodeCrypto = lazyModule(() => import('node:crypto'));

/** Resolves once node:crypto is loaded; undefined when it already is (the usual case, no promise). */
export function loadNodeCrypto(): Promise<unknown> | undefined {
  return nodeCrypto.loaded === undefined ? nodeCrypto.load() : undefined;
}

function loaded(): typeof import('node:crypto') {
  const crypto = nodeCrypto.loaded;
  if (crypto === undefined) throw new Error('node:crypto is not loaded yet: await loadNodeCrypto() first');
  return crypto;
}

interface StatePayload {
  v: 1;
  m: string; // method
  d: string; // digest of the params the state belongs to
  p: string; // principal
  e: number; // expiry, ms since epoch
  a: JsonObject; // answers gathered in earlier rounds
}

/** JSON with sorted keys, so the same params give the same digest whatever order the client sends. */
function canonicalJson(value: unknown, depth = 0): string {
  // Params nested this deep are not a real request; refusing beats a stack overflow.
  if (depth > MAX_DEPTH) throw invalidParams(`params are nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as JsonObject)[k], depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const MAX_DEPTH = 256;

/** The params that identify the request: everything but the MRTR fields and `_meta`. */
export function paramsDigest(params: JsonObject): string {
  const { inputResponses: _i, requestState: _s, _meta: _m, ...rest } = params;
  return loaded().createHash('sha256').update(canonicalJson(rest)).digest('base64url');
}

/**
 * HMAC-SHA256 with the server's one secret: MRTR requestState and 2025 session ids are signed with
 * it, so instances that share `requestState.secret` accept each other's. Session MACs cover a
 * label with a NUL, which no requestState body (base64url) contains: one never passes as the other.
 */
export class Signer {
  /** The configured secret, or a random one made on first use (with node:crypto, not at start-up). */
  #secret: Uint8Array | string | undefined;

  constructor(secret: Uint8Array | string | undefined) {
    this.#secret = secret;
  }

  mac(body: string): Buffer {
    const crypto = loaded();
    this.#secret ??= crypto.randomBytes(32);
    return crypto.createHmac('sha256', this.#secret).update(body).digest();
  }

  /** Whether `macText` (base64url) is the MAC of `body`, compared in constant time. */
  verify(body: string, macText: string): boolean {
    const mac = Buffer.from(macText, 'base64url');
    const expected = this.mac(body);
    return mac.length === expected.length && loaded().timingSafeEqual(mac, expected);
  }
}

export class RequestStateCodec {
  constructor(
    private readonly signer: Signer,
    private readonly ttlMs: number,
  ) {}

  seal(method: string, params: JsonObject, principal: string, answers: JsonObject): string {
    const digest = paramsDigest(params);
    const payload: StatePayload = { v: 1, m: method, d: digest, p: principal, e: Date.now() + this.ttlMs, a: answers };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.signer.mac(body).toString('base64url')}`;
  }

  /** The answers sealed in a state, or -32602 for tampered, expired or misdirected state. */
  open(state: unknown, method: string, params: JsonObject, principal: string): JsonObject {
    const bad = invalidParams('Invalid requestState: it was altered, has expired or belongs to another request');
    if (typeof state !== 'string' || state.length > 1_000_000) throw bad;
    const dot = state.indexOf('.');
    if (dot < 0) throw bad;
    const body = state.slice(0, dot);
    if (!this.signer.verify(body, state.slice(dot + 1))) throw bad;
    let payload: StatePayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
    } catch {
      throw bad;
    }
    if (payload.v !== 1 || payload.m !== method || payload.d !== paramsDigest(params) || payload.p !== principal) throw bad;
    if (!(payload.e > Date.now())) throw bad;
    return payload.a && typeof payload.a === 'object' ? payload.a : {};
  }
}
