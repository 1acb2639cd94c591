/**
 * MRTR `requestState` (2026-07-28): the answers collected so far travel with the client, so the
 * server keeps nothing. The state is attacker-controlled input, so it is HMAC-SHA256 signed and bound
 * to the method, a digest of the params, the principal and an expiry; anything else is -32602.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalidParams } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';

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
  return createHash('sha256').update(canonicalJson(rest)).digest('base64url');
}

export class RequestStateCodec {
  constructor(
    private readonly secret: Uint8Array | string,
    private readonly ttlMs: number,
  ) {}

  #mac(body: string): Buffer {
    return createHmac('sha256', this.secret).update(body).digest();
  }

  seal(method: string, digest: string, principal: string, answers: JsonObject): string {
    const payload: StatePayload = { v: 1, m: method, d: digest, p: principal, e: Date.now() + this.ttlMs, a: answers };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.#mac(body).toString('base64url')}`;
  }

  /** The answers sealed in a state, or -32602 for tampered, expired or misdirected state. */
  open(state: unknown, method: string, digest: string, principal: string): JsonObject {
    const bad = invalidParams('Invalid requestState: it was altered, has expired or belongs to another request');
    if (typeof state !== 'string' || state.length > 1_000_000) throw bad;
    const dot = state.indexOf('.');
    if (dot < 0) throw bad;
    const body = state.slice(0, dot);
    const mac = Buffer.from(state.slice(dot + 1), 'base64url');
    const expected = this.#mac(body);
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw bad;
    let payload: StatePayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
    } catch {
      throw bad;
    }
    if (payload.v !== 1 || payload.m !== method || payload.d !== digest || payload.p !== principal) throw bad;
    if (!(payload.e > Date.now())) throw bad;
    return payload.a && typeof payload.a === 'object' ? payload.a : {};
  }
}
