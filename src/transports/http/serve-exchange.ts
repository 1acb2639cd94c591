/**
 * The HTTP transport's protocol logic, written once for every runtime: the gate (errors.md §3),
 * dispatch, the JSON / SSE switch, session ids and keep-alives. Adapters only move bytes.
 */
import type { Connection, Outcome, Send } from '../../core.js';
import { serializeMessage, type JsonRpcMessage, type RequestId } from '../../protocol/jsonrpc.js';
import type { MiniMCP } from '../../server.js';
import type { Exchange, HeaderMap } from './exchange.js';
import { ACCEPTS_JSON, ACCEPTS_SSE, acceptedTypes, isJsonContentType } from './media-types.js';
import { hostAllowed, originAllowed } from './origin.js';
import type { Settings } from './options.js';
import { connectionFromSession, mintSessionId } from './session.js';

const JSON_HEADERS: HeaderMap = { 'content-type': 'application/json' };
const SSE_HEADERS: HeaderMap = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};
const KEEP_ALIVE = ': keepalive\n\n';
const utf8 = new TextDecoder('utf-8', { fatal: true });

const errorBody = (id: RequestId | null, code: number, message: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });

/** Answers before dispatch: a JSON-RPC error with `"id": null` and an HTTP status. */
function refuse(ex: Exchange<unknown>, status: number, code: number, message: string, extra?: HeaderMap): void {
  ex.respond(status, extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS, errorBody(null, code, message));
}

function writeKeepAlive(ex: Exchange<unknown>): void {
  if (!ex.signal.aborted) ex.write(KEEP_ALIVE);
}

/** The id of a parsed message, read without trusting its shape (null when absent or invalid). */
function idOf(value: unknown): RequestId | null {
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function methodOf(value: unknown): string | undefined {
  const method = typeof value === 'object' && value !== null ? (value as { method?: unknown }).method : undefined;
  return typeof method === 'string' ? method : undefined;
}

/** One HTTP exchange from headers to the last byte. Never throws. */
export async function serveExchange<Scope>(mcp: MiniMCP<Scope>, settings: Settings, ex: Exchange<Scope>): Promise<void> {
  let id: RequestId | null = null;
  let answered = false; // a status line has gone out (JSON answer or stream)
  try {
    const hosts = settings.hosts;
    if (hosts && (!hostAllowed(hosts, ex.get('host')) || !originAllowed(hosts, ex.get('origin')))) {
      return refuse(ex, 403, -32600, 'Forbidden: Host or Origin not allowed');
    }
    if (ex.method !== 'POST') {
      return refuse(ex, 405, -32600, 'Method Not Allowed: this MCP endpoint only accepts POST', { allow: 'POST' });
    }
    if (!isJsonContentType(ex.get('content-type'))) {
      return refuse(ex, 415, -32600, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const accepts = acceptedTypes(ex.get('accept'));
    if (!(accepts & ACCEPTS_JSON)) return refuse(ex, 406, -32600, 'Not Acceptable: Accept must allow application/json');

    let scope: Scope | undefined;
    try {
      const pending = ex.scope();
      scope = pending instanceof Promise ? await pending : pending;
    } catch (error) {
      if (!isHttpError(error) && ex.fail?.(error)) return;
      return refuseScope(ex, settings, error);
    }

    const body = await ex.readBody(settings.maxBodyBytes);
    // The client left (or broke the upload): nobody will read this, but every exchange gets an answer.
    if (body === undefined) return refuse(ex, 400, -32600, 'Bad Request: the body could not be read');
    if (body === 'too-large') {
      return refuse(ex, 413, -32600, `Payload Too Large: the body exceeds ${settings.maxBodyBytes} bytes`, { connection: 'close' });
    }
    let value: unknown;
    if (body instanceof Uint8Array) {
      try {
        value = JSON.parse(utf8.decode(body));
      } catch {
        return refuse(ex, 400, -32700, 'Parse error: the body is not valid UTF-8 JSON');
      }
    } else {
      value = body.parsed;
    }

    id = idOf(value);
    const method = methodOf(value);
    const isRequest = id !== null && method !== undefined;
    const sessionHeader = ex.get('mcp-session-id');
    const connection: Connection | undefined = sessionHeader !== undefined
      ? connectionFromSession(sessionHeader)
      : method === 'initialize' ? {} : undefined;

    // Streaming state, shared with `send` through its closure (the one closure a request needs).
    let streaming = false;
    let finished = false;
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    const send: Send | undefined = isRequest && settings.streamable && accepts & ACCEPTS_SSE
      ? (outgoing: JsonRpcMessage) => {
          if (finished || ex.signal.aborted) return; // late or orphaned messages are dropped
          if (!streaming) {
            streaming = answered = true;
            ex.openStream(SSE_HEADERS);
            keepAlive = setInterval(writeKeepAlive, settings.keepAliveMs, ex);
          }
          const text = serializeMessage(outgoing);
          if (text !== undefined) ex.write(`event: message\ndata: ${text}\n\n`);
        }
      : undefined;

    let outcome: Outcome;
    try {
      // Only requests can be cancelled: notifications and client responses skip the signal's cost.
      const signal = isRequest ? ex.signal : undefined;
      outcome = await mcp.dispatch(value, { send, scope, signal, headers: ex, connection });
    } finally {
      finished = true;
      if (keepAlive !== undefined) clearInterval(keepAlive);
    }

    const reply = outcome.reply;
    if (streaming) {
      if (reply !== undefined) ex.write(`event: message\ndata: ${serializeMessage(reply)}\n\n`);
      return ex.end();
    }
    answered = true;
    if (reply === undefined) return ex.respond(202, undefined, undefined);
    let headers = JSON_HEADERS;
    if (outcome.status === 503) headers = { ...JSON_HEADERS, 'retry-after': settings.retryAfter };
    else if (method === 'initialize' && connection?.protocolVersion !== undefined && 'result' in reply) {
      headers = { ...JSON_HEADERS, 'mcp-session-id': mintSessionId(connection) };
    }
    ex.respond(outcome.status, headers, serializeMessage(reply));
  } catch (error) {
    try {
      if (!answered && ex.fail?.(error)) return;
      settings.onError(error);
      if (answered) ex.end();
      else ex.respond(500, JSON_HEADERS, errorBody(id, -32603, 'Internal error'));
    } catch {
      // The log or the socket failed too; nothing is left to tell anyone.
    }
  }
}

interface HttpError {
  code: number;
  message: string;
  httpStatus: number;
  /** Extra response headers, e.g. `WWW-Authenticate` with a 401. */
  headers?: HeaderMap;
}

/** An McpError (from any copy of the library) that carries an HTTP status: the scope factory's way to refuse. */
function isHttpError(error: unknown): error is HttpError {
  const e = error as Partial<HttpError> | null;
  const status = e?.httpStatus;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 &&
    typeof e!.code === 'number' && typeof e!.message === 'string';
}

/** A scope factory may refuse (e.g. 401) with an McpError carrying httpStatus; anything else is a 500. */
function refuseScope(ex: Exchange<unknown>, settings: Settings, error: unknown): void {
  if (isHttpError(error)) {
    const extra = typeof error.headers === 'object' && error.headers !== null ? error.headers : undefined;
    return refuse(ex, error.httpStatus, error.code, error.message, extra);
  }
  settings.onError(error);
  refuse(ex, 500, -32603, 'Internal error');
}
