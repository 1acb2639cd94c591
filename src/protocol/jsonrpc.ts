/** JSON-RPC 2.0 wire types and the hand-written envelope check (no schema library on the hot path). */
import { ErrorCode, McpError, internalError } from './errors.js';

export type RequestId = string | number;
export type JsonObject = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: JsonObject;
}
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
// Type aliases, not interfaces: a response is then also a JsonObject (what handle() returns), and the
// `?: never` members let code read `reply.error` / `reply.result` on either kind without a cast.
export type JsonRpcResultResponse = {
  jsonrpc: '2.0';
  id: RequestId;
  result: JsonObject;
  error?: never;
};
export type JsonRpcErrorResponse = {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
  result?: never;
};
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What the envelope check makes of one incoming message. */
export type Envelope =
  | { kind: 'request'; id: RequestId; method: string; params: JsonObject | undefined }
  | { kind: 'notification'; method: string; params: JsonObject | undefined }
  | { kind: 'response'; id: RequestId; result?: JsonObject; error?: JsonRpcErrorObject }
  | { kind: 'invalid'; id: RequestId | null; error: McpError };

/** A plain JSON object (not null, not an array): the one check every module uses. */
export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RequestId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

/** Parses text into a value, or reports -32700. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: McpError } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: new McpError(ErrorCode.ParseError, 'Parse error: invalid JSON', undefined, 400) };
  }
}

const invalid = (id: RequestId | null, reason: string): Envelope => ({
  kind: 'invalid',
  id,
  error: new McpError(ErrorCode.InvalidRequest, `Invalid Request: ${reason}`, undefined, 400),
});

/** Classifies a parsed value as request, notification, response or invalid (-32600). */
export function readEnvelope(value: unknown): Envelope {
  if (Array.isArray(value)) return invalid(null, 'batches are not supported');
  if (!isObject(value)) return invalid(null, 'expected a JSON-RPC object');
  const hasId = 'id' in value;
  const readableId = hasId && isId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') return invalid(readableId, 'jsonrpc must be "2.0"');
  if ('method' in value) {
    if (typeof value.method !== 'string') return invalid(readableId, 'method must be a string');
    const params = value.params;
    if (params !== undefined && !isObject(params)) return invalid(readableId, 'params must be an object');
    if (!hasId) return { kind: 'notification', method: value.method, params };
    if (!isId(value.id)) return invalid(null, 'id must be a string or an integer');
    return { kind: 'request', id: value.id, method: value.method, params };
  }
  if (hasId && ('result' in value || 'error' in value)) {
    if (!isId(value.id)) return invalid(null, 'id must be a string or an integer');
    if ('result' in value && isObject(value.result)) return { kind: 'response', id: value.id, result: value.result };
    if (isObject(value.error) && typeof value.error.code === 'number' && typeof value.error.message === 'string') {
      return { kind: 'response', id: value.id, error: value.error as unknown as JsonRpcErrorObject };
    }
    return invalid(readableId, 'malformed response');
  }
  return invalid(readableId, 'missing method');
}

export const resultResponse = (id: RequestId, result: JsonObject): JsonRpcResultResponse => ({
  jsonrpc: '2.0',
  id,
  result,
});

export const errorResponse = (id: RequestId | null, error: McpError): JsonRpcErrorResponse => ({
  jsonrpc: '2.0',
  id,
  error: error.data === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, data: error.data },
});

/**
 * The JSON text of an outgoing message. A reply that cannot be serialized (a BigInt, a cycle) becomes
 * -32603 for its id, so the request still gets its one answer, or, for a tool's result (its `content`
 * list), an `isError` result the model reads, as for any other broken tool; such a notification is dropped.
 */
export function serializeMessage(message: object): string | undefined {
  if (message instanceof EncodedNotification) return message.text;
  try {
    return JSON.stringify(message);
  } catch {
    const { id, result } = message as { id?: RequestId | null; result?: { content?: unknown; resultType?: unknown } };
    if (id === undefined || !('result' in message || 'error' in message)) return undefined;
    if (id !== null && Array.isArray(result?.content)) {
      const text = 'The tool returned a result that cannot be sent as JSON (a BigInt or a cycle)';
      const kept = typeof result.resultType === 'string' ? { resultType: result.resultType } : {};
      return JSON.stringify(resultResponse(id, { content: [{ type: 'text', text }], isError: true, ...kept }));
    }
    return JSON.stringify(errorResponse(id, internalError('Internal error: the result could not be serialized')));
  }
}

/**
 * A notification that carries its JSON text, for one event sent to many streams (fan-out): the text is
 * built from parts encoded once per event, so each stream pays a concatenation, not a stringify. It
 * is a plain notification to anything that reads its fields; a copy (spread) is encoded as usual.
 */
export class EncodedNotification implements JsonRpcNotification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params: JsonObject;
  // Private, so the fields a user's `send` sees (and JSON.stringify writes) are the message's only.
  readonly #text: string;

  constructor(method: string, params: JsonObject, text: string) {
    // Assigned in wire order, so a stringify of the fields gives the same text.
    this.jsonrpc = '2.0';
    this.method = method;
    this.params = params;
    this.#text = text;
  }

  get text(): string {
    return this.#text;
  }
}
