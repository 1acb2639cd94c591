/**
 * MRTR `requestState` (2026-07-28): the answers collected so far travel with the client, so the
 * server keeps nothing. The state is attacker-controlled input, so it is HMAC-SHA256 signed and bound
 * to the method, a digest of the params, the principal and an expiry; anything else is -32602.
 *
 * Hashing and HMAC come from src/platform/crypto.ts (node:crypto where the runtime has it, plain JS
 * elsewhere), loaded on first need, not at start-up: `loadCrypto()` must have resolved before
 * `paramsDigest`, `seal` or `open` run; the core waits for it when needed.
 */
import { invalidParams } from '../protocol/errors.js';
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { fromBase64url, textFromBase64url, toBase64url } from '../platform/base64url.js';

/** What one requestState may carry of `ctx.once()` results (the `requestState.maxSteps` / `maxStepBytes` options). */
export interface StepLimits {
  /** Steps per request, across all its rounds. */
  readonly maxSteps: number;
  /** UTF-8 bytes of all steps' keys and JSON results together. */
  readonly maxStepBytes: number;
}
import { hashing, sameBytes } from '../platform/crypto.js';

export { loadCrypto } from '../platform/crypto.js';

const encoder = new TextEncoder();

interface StatePayload {
  v: 1;
  m: string; // method
  d: string; // digest of the params the state belongs to
  p: string; // principal
  e: number; // expiry, ms since epoch
  a: JsonObject; // answers gathered in earlier rounds
  s?: JsonObject; // results of `ctx.once()` steps run in earlier rounds (absent when none)
}

/** What a requestState carries from one round to the next. */
export interface Sealed {
  /** The client's answers to earlier input requests, by key. */
  answers: JsonObject;
  /** `ctx.once()` results of earlier rounds, by step key (see src/context/steps.ts); undefined when none. */
  steps: JsonObject | undefined;
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
  return toBase64url(hashing().sha256(canonicalJson(rest)));
}

/**
 * HMAC-SHA256 with the server's one secret: MRTR requestState and 2025 session ids are signed with
 * it, so instances that share `requestState.secret` accept each other's. Session MACs cover a
 * label with a NUL, which no requestState body (base64url) contains: one never passes as the other.
 */
export const MIN_SECRET_BYTES = 32;

export class Signer {
  /** The configured secret, or a random one made on first use (not at start-up). */
  #secret: Uint8Array | string | undefined;

  constructor(secret: Uint8Array | string | undefined) {
    // A short secret can be guessed offline from one signed value; HMAC-SHA256 wants 32 bytes of key.
    if (secret !== undefined) {
      const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret).length : secret instanceof Uint8Array ? secret.length : -1;
      if (bytes < MIN_SECRET_BYTES) {
        throw new TypeError(`MiniMCP option requestState.secret must be a string or Uint8Array of at least ${MIN_SECRET_BYTES} bytes`);
      }
    }
    this.#secret = secret;
  }

  mac(body: string): Uint8Array {
    this.#secret ??= crypto.getRandomValues(new Uint8Array(32));
    return hashing().hmacSha256(this.#secret, body);
  }

  /** Whether `macText` (base64url) is the MAC of `body`, compared in constant time. */
  verify(body: string, macText: string): boolean {
    let mac: Uint8Array;
    try {
      mac = fromBase64url(macText);
    } catch {
      return false; // not base64url at all
    }
    // The decoder forgives whitespace and padding: only the exact encoding of the MAC is accepted.
    return sameBytes(mac, this.mac(body)) && toBase64url(mac) === macText;
  }
}

export class RequestStateCodec {
  constructor(
    private readonly signer: Signer,
    private readonly ttlMs: number,
    /** What `ctx.once()` may seal into one state (the `requestState.maxSteps` and `maxStepBytes` options). */
    readonly stepLimits: StepLimits,
  ) {}

  seal(method: string, params: JsonObject, principal: string, { answers, steps }: Sealed): string {
    const digest = paramsDigest(params);
    const payload: StatePayload = { v: 1, m: method, d: digest, p: principal, e: Date.now() + this.ttlMs, a: answers };
    if (steps !== undefined) payload.s = steps;
    const body = toBase64url(encoder.encode(JSON.stringify(payload)));
    return `${body}.${toBase64url(this.signer.mac(body))}`;
  }

  /** What a state carries, or -32602 for tampered, expired or misdirected state. */
  open(state: unknown, method: string, params: JsonObject, principal: string): Sealed {
    const bad = invalidParams('Invalid requestState: it was altered, has expired or belongs to another request');
    if (typeof state !== 'string' || state.length > 1_000_000) throw bad;
    const dot = state.indexOf('.');
    if (dot < 0) throw bad;
    const body = state.slice(0, dot);
    if (!this.signer.verify(body, state.slice(dot + 1))) throw bad;
    let payload: StatePayload;
    try {
      payload = JSON.parse(textFromBase64url(body)) as StatePayload;
    } catch {
      throw bad;
    }
    if (payload.v !== 1 || payload.m !== method || payload.d !== paramsDigest(params) || payload.p !== principal) throw bad;
    if (!(payload.e > Date.now())) throw bad;
    return { answers: isObject(payload.a) ? payload.a : {}, steps: isObject(payload.s) ? payload.s : undefined };
  }
}

/**
 * 2026: earlier answers and step results sealed in requestState (opened here, so bad state is -32602),
 * plus the client's inputResponses.
 */
export function mrtrInputs(codec: RequestStateCodec, method: string, params: JsonObject, principal: string, retry: boolean): Sealed {
  const sealed = retry ? codec.open(params.requestState, method, params, principal) : undefined;
  const responses = params.inputResponses;
  if (responses !== undefined && !isObject(responses)) throw invalidParams('params.inputResponses must be an object');
  // Sealed answers win: the client may add answers for new questions, never rewrite earlier ones.
  return { answers: { ...responses, ...sealed?.answers }, steps: sealed?.steps };
}
