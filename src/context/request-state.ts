/**
 * MRTR `requestState` (2026-07-28): the answers collected so far travel with the client, so the
 * server keeps nothing. The state is attacker-controlled input, so it is HMAC-SHA256 signed and bound
 * to the method, a digest of the params, the principal and an expiry; anything else is -32602.
 *
 * Signing uses Web Crypto (src/platform/hmac.ts), which every supported runtime has without Node
 * compatibility; it is asynchronous, so sealing and opening are too.
 */
import { invalidParams } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { fromBase64url, textFromBase64url, toBase64url } from '../platform/base64url.js';
import { hmacKey, randomSecret, sha256, type HmacKey } from '../platform/hmac.js';

const encoder = new TextEncoder();

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
export async function paramsDigest(params: JsonObject): Promise<string> {
  const { inputResponses: _i, requestState: _s, _meta: _m, ...rest } = params;
  return toBase64url(await sha256(canonicalJson(rest)));
}

export class RequestStateCodec {
  /** The configured secret, or a random one made on first use. */
  #key: HmacKey | undefined;

  constructor(
    private readonly secret: Uint8Array | string | undefined,
    private readonly ttlMs: number,
  ) {}

  get #hmac(): HmacKey {
    return (this.#key ??= hmacKey(this.secret ?? randomSecret()));
  }

  async seal(method: string, params: JsonObject, principal: string, answers: JsonObject): Promise<string> {
    const digest = await paramsDigest(params);
    const payload: StatePayload = { v: 1, m: method, d: digest, p: principal, e: Date.now() + this.ttlMs, a: answers };
    const body = toBase64url(encoder.encode(JSON.stringify(payload)));
    return `${body}.${toBase64url(await this.#hmac.sign(body))}`;
  }

  /** The answers sealed in a state, or -32602 for tampered, expired or misdirected state. */
  async open(state: unknown, method: string, params: JsonObject, principal: string): Promise<JsonObject> {
    const bad = invalidParams('Invalid requestState: it was altered, has expired or belongs to another request');
    if (typeof state !== 'string' || state.length > 1_000_000) throw bad;
    const dot = state.indexOf('.');
    if (dot < 0) throw bad;
    const body = state.slice(0, dot);
    let payload: StatePayload;
    try {
      if (!(await this.#hmac.verify(fromBase64url(state.slice(dot + 1)), body))) throw bad;
      payload = JSON.parse(textFromBase64url(body)) as StatePayload;
    } catch {
      throw bad;
    }
    if (payload.v !== 1 || payload.m !== method || payload.d !== (await paramsDigest(params)) || payload.p !== principal) throw bad;
    if (!(payload.e > Date.now())) throw bad;
    return payload.a && typeof payload.a === 'object' ? payload.a : {};
  }
}
