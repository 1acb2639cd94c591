/** What the dispatcher and the method table share: the registries, the settings, the limits. */
import type { CancelSignal } from './context/cancellation.js';
import type { Context } from './context/context.js';
import type { PrincipalQuota } from './context/principal.js';
import type { ConcurrencyGate, IdleSweeper } from './request/limits.js';
import type { MaybePromise, SessionPatch, SharedState } from './state/index.js';
import type { RequestStateCodec } from './context/request-state.js';
import type { Connection, SessionCodec } from './context/sessions.js';
import type { McpError } from './protocol/errors.js';
import type { JsonObject, JsonRpcMessage, RequestId } from './protocol/jsonrpc.js';
import type { HeaderLookup } from './protocol/standard-headers.js';
import type { ModernMeta } from './protocol/era.js';
import type { Era } from './protocol/versions.js';
import type { PromptRegistry } from './primitives/prompts.js';
import type { ResourceRegistry } from './primitives/resources.js';
import type { ToolRegistry } from './primitives/tools.js';
import type { Caller } from './primitives/visibility.js';
import type { TaskService } from './tasks/service.js';
import type { Telemetry } from './telemetry/types.js';
import type { CacheHint, Implementation } from './types.js';

export type { Connection } from './context/sessions.js';

export type Send = (message: JsonRpcMessage) => void;

/**
 * What a transport knows about one message beyond its bytes. Every field is optional: `handle()`
 * with none of them serves a message in code, as a test or an in-process client would.
 */
export interface MessageFacts<Scope = unknown> {
  /** The channel back to the client for notifications and requests tied to this message. */
  send?: Send;
  /** What the host attached to the caller (a verified token, a tenant): `ctx.scope` in handlers. */
  scope?: Scope;
  /**
   * Who is asking, when the transport itself knows (an authenticated peer). Otherwise the server's
   * `principal(scope)` option decides, or the scope's own `principal` string; '' is anonymous. Cancellation, 2025 server requests, sessions, MRTR state and
   * the concurrency share are bound to it.
   */
  principal?: string;
  /** Aborting it cancels the handler (a closed connection). Only these members are used, so a transport may pass a lighter object. */
  signal?: CancelSignal;
  /**
   * The request's headers, when the transport has them (HTTP): the protocol version, SEP-2243
   * `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*` and the session id are read from them, in protocol/ only.
   */
  headers?: HeaderLookup;
  /** The era, if the transport already decided it with `decideEra()` (HTTP does at its gate); decided here otherwise. */
  era?: Era;
  /** 2025 era: the transport's per-connection state (stdio keeps one per stream). */
  connection?: Connection;
  /**
   * 2025 era, for transports without a connection object (HTTP): the session id the client
   * presented (`Mcp-Session-Id`). The core checks it (signed, bound to the principal) and serves the
   * request on the session it names; one that names none is answered 404.
   */
  session?: string;
  /** The transport can hand a session id to the client (HTTP): a successful 2025 `initialize` then gets one in `Outcome.session`. */
  sessions?: boolean;
  /** 2025 HTTP SSE only (SEP-1699): ends the response stream early; the rest is delivered on a resuming GET. */
  closeStream?: () => void;
  /** A stream transport (stdio): a 2025 request before `initialize` is refused (see request/call.ts). */
  requireInitialize?: boolean;
  /** Keeps the runtime working on a promise after the response (Workers' `ctx.waitUntil`); undefined where the process lives on anyway. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** @deprecated The old name of MessageFacts. */
export type HandleOptions<Scope = unknown> = MessageFacts<Scope>;

/**
 * Receives an outcome that was not ready when `route()` returned: exactly once, later. An object
 * with a method rather than a bare function, so a transport's per-request object can be its own sink.
 */
export interface OutcomeSink {
  deliver(outcome: Outcome): void;
}

/** What one message produced: the reply (none for notifications) and its HTTP status. */
export interface Outcome {
  reply: JsonObject | undefined;
  status: number;
  /** A new 2025 session id for the client (only when the facts said `sessions: true`): HTTP sends it as `Mcp-Session-Id`. */
  session?: string;
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
  /** The state that outlives a request: bus, answers, cancels, sessions, replay (memory by default). */
  readonly state: SharedState;
  readonly gate: ConcurrencyGate;
  readonly idle: IdleSweeper;
  /** Open `subscriptions/listen` streams: at most `maxStreams`, and `maxStreamsPerPrincipal` per principal. */
  readonly streams: PrincipalQuota;
  readonly stateCodec: RequestStateCodec;
  readonly sessions: SessionCodec;
  readonly hooks: Hooks<Scope>[];
  /** Tasks: the store, this instance's id and the task settings. */
  readonly tasks: TaskService;
  /** Traces and metrics (the `telemetry` option); undefined: none, and no work per request. */
  readonly telemetry: Telemetry | undefined;
  readonly settings: {
    pageSize: number;
    idleTimeoutMs: number;
    clientRequestTimeoutMs: number;
    cache: CacheSettings;
    debug: boolean;
    /** The generic text a client reads for an unexpected failure (the `errorMessage` option). */
    errorMessage: string | undefined;
    asyncContext: boolean;
  };
  /** The server's capabilities; given a caller, without `completions` when it may see nothing to complete. */
  capabilities(era: Era, caller?: Caller<Scope>): JsonObject;
  /** Who is asking ('' when anonymous): the `principal` option, else the scope's own `principal` string. */
  principalOf(scope: Scope | undefined): string;
  reportError(error: unknown, request: RequestInfo | undefined): void;
  /** The `onDebug` log: a request stopped without failing (cancel, timeout, shutdown). */
  reportDebug(message: string, request: RequestInfo | undefined): void;
}

/** What the method table sees of one request (the request object itself). */
export interface MethodCall<Scope> {
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject;
  readonly era: Era;
  readonly modern: ModernMeta | undefined;
  readonly headers: HeaderLookup | undefined;
  readonly connection: Connection | undefined;
  readonly send: Send | undefined;
  readonly ctx: Context<Scope>;
  /** Who asks ('' when anonymous). */
  readonly principal: string;
  /** Logs an unexpected failure with this request (the server's `onError`). */
  reportError(error: unknown): void;
  /** tools/call: this call becomes a task (2025: now; 2026: once its handler waits). */
  planTask(ttlMs: number, immediate: boolean): void;
  /** 2025: keeps a change to the session (log level, subscriptions) for its later requests, on any instance. */
  remember(patch: SessionPatch): MaybePromise<void>;
}
