/**
 * The error contract (docs/errors.md): every code MiniMCP sends, the error classes a handler may throw,
 * and the one table that turns a JSON-RPC error into an HTTP status.
 */

/** Every JSON-RPC error code MiniMCP knows. Retired codes are kept so clients can recognise them. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** 2026-07-28: an HTTP header disagrees with the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the requested protocol version is not served. */
  UnsupportedProtocolVersion: -32022,
  /** @deprecated Retired resource-not-found code (up to 2025-11-25). MiniMCP sends -32602 with `data.uri`. */
  ResourceNotFoundRetired: -32002,
  /** @deprecated 2025-11-25 only: URL elicitation required. Never sent to a 2026-07-28 client. */
  UrlElicitationRequired: -32042,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Codes the spec defines inside its reserved range -32020..-32099 (plus the retired -32042), the
 * Events extension's included (SEP-3415: -32023..-32027).
 */
const SPEC_RANGE_CODES = new Set<number>([-32020, -32021, -32022, -32042, -32023, -32024, -32025, -32026, -32027]);

/** The one exception to the legacy range: the Events codes deployed clients were built on (src/events/errors.ts). */
const DEPLOYED_EVENT_CODES = new Set<number>([-32011, -32012, -32013, -32014, -32015]);

/**
 * A protocol error with a JSON-RPC code. Throw it from a prompt, resource or completion handler to
 * answer with that error; from a tool handler it becomes an `isError` result like any other throw.
 */
export class McpError extends Error {
  readonly code: number;
  readonly data: unknown;
  /** An HTTP status for errors found before dispatch (the gate); dispatch errors travel with 200. */
  readonly httpStatus: number | undefined;

  constructor(code: number, message: string, data?: unknown, httpStatus?: number) {
    super(message);
    if (!Number.isInteger(code)) throw new TypeError(`McpError code must be an integer, got ${code}`);
    if (code <= -32000 && code >= -32019 && !DEPLOYED_EVENT_CODES.has(code)) {
      throw new RangeError(`McpError code ${code} is in -32000..-32019, a legacy range MiniMCP never emits`);
    }
    if (code <= -32020 && code >= -32099 && !SPEC_RANGE_CODES.has(code)) {
      throw new RangeError(`McpError code ${code} is reserved for the MCP specification and not defined by it`);
    }
    this.name = 'McpError';
    this.code = code;
    this.data = data;
    // The spec answers -32020, -32021 and -32022 with HTTP 400, wherever they are raised.
    this.httpStatus = httpStatus ?? (code <= -32020 && code >= -32022 ? 400 : undefined);
  }
}

/** Thrown by the framework for errors that must reach the client as protocol errors, even from a tool. */
export class ProtocolError extends McpError {}

/**
 * A token without the scopes an operation needs: HTTP answers 403 with a `WWW-Authenticate`
 * `insufficient_scope` challenge naming `scopes`, so the client can ask for them (step-up).
 */
export class InsufficientScopeError extends ProtocolError {
  constructor(readonly scopes: readonly string[]) {
    super(ErrorCode.InvalidRequest, `Forbidden: this operation needs the scope ${scopes.join(' ')}`, undefined, 403);
  }
}

/** Resource not found: -32602 with `data.uri`, as SEP-2164 requires (never an empty `contents`). */
export class ResourceNotFoundError extends McpError {
  readonly uri: string;
  constructor(uri: string) {
    super(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
    this.name = 'ResourceNotFoundError';
    this.uri = uri;
  }
}

export const invalidParams = (message: string, data?: unknown, httpStatus?: number): McpError =>
  new McpError(ErrorCode.InvalidParams, message, data, httpStatus);
export const invalidRequest = (message: string, httpStatus = 400): McpError =>
  new McpError(ErrorCode.InvalidRequest, message, undefined, httpStatus);
export const internalError = (message: string): McpError => new McpError(ErrorCode.InternalError, message);

/** Treats both -32602-with-`data.uri` and the retired -32002 as "resource not found" (SEP-2164 transition). */
export function isResourceNotFound(error: { code: number; data?: unknown }): boolean {
  if (error.code === ErrorCode.ResourceNotFoundRetired) return true;
  const data = error.data as { uri?: unknown } | undefined;
  return error.code === ErrorCode.InvalidParams && typeof data?.uri === 'string';
}

/**
 * A failure whose message is meant for the client (the model or the user): `throw new UserError('No
 * city named "Oslp"')`. From a tool it is the `isError` result's text; from a prompt, resource or
 * completion handler a -32603 with this message. It is not logged: it is an answer, not a fault.
 * Anything else thrown unexpectedly reaches the client only as the server's generic text
 * (`errorMessage`), and the server log (`onError`) gets the error itself.
 */
export class UserError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UserError';
  }
}

/** What settings decide the client's text for a failure: the `errorMessage` and `debug` server options. */
export interface ErrorTextSettings {
  readonly errorMessage: string | undefined;
  readonly debug: boolean;
}

/**
 * The text a client reads for a thrown value: a UserError's or McpError's own message; for anything
 * else the generic `fallback` (the `errorMessage` option when set), or with `debug` the error's message.
 * Never a stack. Safe against hostile thrown values (a Proxy, a throwing getter).
 */
export function clientErrorText(error: unknown, settings: ErrorTextSettings, fallback: string): string {
  try {
    if (error instanceof UserError || error instanceof McpError) return String(error.message);
    if (settings.debug && error instanceof Error) return String(error.message);
  } catch {
    // a hostile thrown value: the generic text
  }
  return settings.errorMessage ?? fallback;
}

/** An unknown (or disabled) method; 2026 answers it over HTTP with 404. */
/** -32601 with the HTTP status its revision gives it (a request's Revision.methodNotFound picks it). */
export const methodNotFoundError = (method: string, httpStatus: number | undefined): McpError =>
  new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`, undefined, httpStatus);
