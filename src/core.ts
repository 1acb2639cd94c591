/** What the dispatcher and the method table share: the registries, the settings, the limits. */
import type { NotificationBus } from './bus.js';
import type { CancelSignal } from './context/cancellation.js';
import type { PendingRequests } from './context/client-requests.js';
import type { Context } from './context/context.js';
import type { ConcurrencyGate, IdleSweeper } from './context/limits.js';
import type { RequestRegistry } from './context/in-flight.js';
import type { RequestStateCodec } from './context/request-state.js';
import type { McpError } from './protocol/errors.js';
import type { JsonObject, JsonRpcMessage, RequestId } from './protocol/jsonrpc.js';
import type { HeaderLookup } from './protocol/standard-headers.js';
import type { Era, ModernMeta } from './protocol/versions.js';
import type { PromptRegistry } from './primitives/prompts.js';
import type { ResourceRegistry } from './primitives/resources.js';
import type { ToolRegistry } from './primitives/tools.js';
import type { CacheHint, ClientCapabilities, Implementation, LoggingLevel } from './types.js';

/**
 * Per-connection state of the 2025 era, owned by the transport: stdio keeps one for its stream, HTTP
 * rebuilds it from the session id on every request. The core reads it and `initialize` fills it.
 */
export interface Connection {
  id?: string;
  protocolVersion?: string;
  clientCapabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LoggingLevel;
  initialized?: boolean;
  subscriptions?: Set<string>;
}

export type Send = (message: JsonRpcMessage) => void;

/** The method name of MiniMCP's callback-style dispatch, for the built-in transports (not public API). */
export const ROUTE: unique symbol = Symbol('minimcp.route');

export interface HandleOptions<Scope> {
  /** The channel back to the client for notifications and requests tied to this message. */
  send?: Send;
  scope?: Scope;
  /** Aborting it cancels the handler (a closed connection). Only these members are used, so a transport may pass a lighter object. */
  signal?: CancelSignal;
  /** HTTP only: the request headers (protocol version, session id, SEP-2243 headers). */
  headers?: HeaderLookup;
  /** 2025 era: the transport's per-connection state. */
  connection?: Connection;
  /** 2025 HTTP SSE only (SEP-1699): ends the response stream early; the rest is delivered on a resuming GET. */
  closeStream?: () => void;
  /** A stream transport (stdio): a 2025 request before `initialize` is refused (see dispatch). */
  requireInitialize?: boolean;
  /** Keeps the runtime working on a promise after the response (Workers' `ctx.waitUntil`); undefined where the process lives on anyway. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** What one message produced: the reply (none for notifications) and its HTTP status. */
export interface Outcome {
  reply: JsonObject | undefined;
  status: number;
}

export interface RequestInfo {
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject | undefined;
}

/** Hooks around dispatch: logging, metrics, rate limits, authorization. Limits and error mapping stay in force. */
export interface Hooks<Scope> {
  /** Runs before the handler; throw (e.g. an McpError) to refuse the request. */
  before?(request: RequestInfo, ctx: Context<Scope>): void | Promise<void>;
  after?(request: RequestInfo, result: JsonObject, ctx: Context<Scope>): void | Promise<void>;
  onError?(request: RequestInfo, error: McpError, ctx: Context<Scope> | undefined): void;
}

/** 2026 cache hints per cacheable method; a resource's own `cache` option overrides `reads`. */
export interface CacheSettings {
  discover: CacheHint;
  tools: CacheHint;
  prompts: CacheHint;
  resources: CacheHint;
  resourceTemplates: CacheHint;
  reads: CacheHint;
}

export interface Core<Scope> {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly tools: ToolRegistry<Scope>;
  readonly prompts: PromptRegistry<Scope>;
  readonly resources: ResourceRegistry<Scope>;
  readonly bus: NotificationBus;
  readonly pending: PendingRequests;
  readonly inFlight: RequestRegistry;
  readonly gate: ConcurrencyGate;
  readonly idle: IdleSweeper;
  /** Open `subscriptions/listen` streams, and how many may be open at once. */
  readonly streams: { open: number; readonly max: number };
  readonly stateCodec: RequestStateCodec;
  readonly hooks: Hooks<Scope>[];
  readonly settings: {
    pageSize: number;
    idleTimeoutMs: number;
    clientRequestTimeoutMs: number;
    cache: CacheSettings;
    debug: boolean;
    asyncContext: boolean;
  };
  capabilities(era: Era): JsonObject;
  principalOf(scope: Scope | undefined): string;
  reportError(error: unknown, request: RequestInfo | undefined): void;
}

/** Everything the method table needs to serve one request. */
export interface Call<Scope> {
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject;
  readonly era: Era;
  readonly modern: ModernMeta | undefined;
  readonly headers: HeaderLookup | undefined;
  readonly connection: Connection | undefined;
  readonly send: Send | undefined;
  readonly ctx: Context<Scope>;
}
