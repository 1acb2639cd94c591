/** The HTTP answers given before (or instead of) dispatch: gate refusals and scope-factory refusals. */
import type { RequestId } from '../../protocol/jsonrpc.js';
import type { Exchange, HeaderMap } from './exchange.js';
import type { Settings } from './options.js';

export const JSON_HEADERS: HeaderMap = { 'content-type': 'application/json' };

export const errorBody = (id: RequestId | null, code: number, message: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });

/** Answers before dispatch: a JSON-RPC error with `"id": null` and an HTTP status. */
export function refuse(ex: Exchange<unknown>, status: number, code: number, message: string, extra?: HeaderMap): void {
  ex.respond(status, extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS, errorBody(null, code, message));
}

/**
 * Past the principal's rate limit (request/rate-limit.ts): 429 with Retry-After, answered after its
 * Retry-After (at most 1 s; at most 1,000 held at once). The body is never read, so the connection
 * cannot carry another request and is closed.
 */
export function refuseRate(ex: Exchange<unknown>, refusal: { readonly message: string; readonly retryAfterSeconds: string }): void {
  const answer = () => refuse(ex, 429, -32600, refusal.message, { 'retry-after': refusal.retryAfterSeconds, connection: 'close' });
  const waitMs = Math.min(Number(refusal.retryAfterSeconds) * 1000, MAX_REFUSAL_HOLD_MS);
  if (!(waitMs > 0) || heldRefusals >= MAX_HELD_REFUSALS) return answer();
  // Held, not answered at once: a client that loops on refusals (as a closed loop does) then sends
  // one request per Retry-After instead of thousands a second, each a new connection to accept.
  heldRefusals++;
  const release = () => {
    clearTimeout(timer);
    ex.signal.removeEventListener('abort', release);
    heldRefusals--;
    answer();
  };
  const timer = setTimeout(release, waitMs);
  ex.signal.addEventListener('abort', release);
}

/** A refusal is held at most this long (its Retry-After when shorter). */
const MAX_REFUSAL_HOLD_MS = 1_000;
/** At most this many refusals are held at once, in the process; past it they are answered at once. */
const MAX_HELD_REFUSALS = 1_000;
let heldRefusals = 0;

interface HttpError {
  code: number;
  message: string;
  httpStatus: number;
  /** Extra response headers, e.g. `WWW-Authenticate` with a 401. */
  headers?: HeaderMap;
}

/** An McpError (from any copy of the library) that carries an HTTP status: the scope factory's way to refuse. */
export function isHttpError(error: unknown): error is HttpError {
  const e = error as Partial<HttpError> | null;
  const status = e?.httpStatus;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 &&
    typeof e!.code === 'number' && typeof e!.message === 'string';
}

/** A scope factory may refuse (e.g. 401) with an McpError carrying httpStatus; anything else is a 500. */
export function refuseScope(ex: Exchange<unknown>, settings: Settings, error: unknown): void {
  if (isHttpError(error)) {
    const extra = typeof error.headers === 'object' && error.headers !== null ? error.headers : undefined;
    return refuse(ex, error.httpStatus, error.code, error.message, extra);
  }
  settings.onError(error);
  refuse(ex, 500, -32603, 'Internal error');
}
