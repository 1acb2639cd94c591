/**
 * What the request core and the method table share: the registries, the settings, the limits. The
 * contract with transports (MessageFacts, Outcome, OutcomeSink, Send) is src/transport.ts.
 */
import type { Context } from '../context/context.js';
import type { AuthInfo } from '../protocol/auth-info.js';
import type { HandOffHost, ReplyHandOff } from './hand-off.js';
import type { PrincipalQuota } from '../limits/principal-quota.js';
import type { RateLimiter } from '../limits/rate-limit.js';
import type { ConcurrencyGate, IdleSweeper } from '../limits/concurrency.js';
import type { SessionPatch, SharedState } from '../state/index.js';
import type { RequestStateCodec } from '../signing/request-state.js';
import type { SessionCodec } from '../signing/session-ids.js';
import type { Connection, Send } from '../transport.js';
import type { McpError } from '../protocol/errors.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import type { HeaderLookup } from '../protocol/standard-headers.js';
import type { Era, Eras, RequestMeta, Revision } from '../protocol/revisions/revision.js';
import type { PromptRegistry } from '../primitives/prompts.js';
import type { ResourceRegistry } from '../primitives/resources.js';
import type { ToolRegistry } from '../primitives/tools.js';
import type { Caller } from '../primitives/visibility.js';
import type { Telemetry } from '../telemetry/types.js';
import type { CacheHint, Implementation, MaybePromise } from '../protocol/mcp-types.js';


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

/**
 * What the core's tenants keep per server, beside what it keeps itself. Empty here: a tenant adds its
 * own field by declaration merging (tasks/service.ts adds `tasks`), so this contract names none of them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the tenants, by declaration merging
export interface Tenants {}

export interface Core<Scope> extends Tenants {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly tools: ToolRegistry<Scope>;
  readonly prompts: PromptRegistry<Scope>;
  readonly resources: ResourceRegistry<Scope>;
  /** The state that outlives a request: bus, answers, cancels, sessions, replay (memory by default). */
  readonly state: SharedState;
  /** Per-principal rate limits (the `rateLimit` option); undefined when turned off. */
  readonly rates: RateLimiter | undefined;
  readonly gate: ConcurrencyGate;
  readonly idle: IdleSweeper;
  /** Long-lived streams (listen, 2025 GET, tasks/result waits): at most `maxStreams`, and `maxStreamsPerPrincipal` per principal. */
  readonly streams: PrincipalQuota;
  readonly stateCodec: RequestStateCodec;
  readonly sessions: SessionCodec;
  readonly hooks: Hooks<Scope>[];
  /** This server's request methods and client notifications: the built-ins and what `mcp.method()` added. */
  readonly methods: MethodLookup;
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
  /** Who is asking ('' when anonymous): the token's principal refined by the `principal` option (or the scope's own `principal` string); without a token, that option or string alone. */
  principalOf(scope: Scope | undefined, auth?: AuthInfo): string;
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
  /** The request's protocol family: what differs on the wire is asked of it. */
  readonly revision: Revision;
  /** The request's own `_meta` envelope (stateless family). */
  readonly meta: RequestMeta | undefined;
  readonly headers: HeaderLookup | undefined;
  readonly connection: Connection | undefined;
  readonly send: Send | undefined;
  readonly ctx: Context<Scope>;
  /** Who asks ('' when anonymous). */
  readonly principal: string;
  /** Logs an unexpected failure with this request (the server's `onError`). */
  reportError(error: unknown): void;
  /** The request may answer early and its handler go on: a hand-off (a task) takes it over (see hand-off.ts). */
  outlive(make: (host: HandOffHost) => ReplyHandOff, now: boolean): void;
  /** 2025: keeps a change to the session (log level, subscriptions) for its later requests, on any instance. */
  remember(patch: SessionPatch): MaybePromise<void>;
}

export interface MethodSpec {
  /** Which eras serve it: 2026 removed some methods and added others. */
  readonly eras: Eras;
  /** The capability gate: a method behind an unadvertised capability is -32601. */
  // biome-ignore lint/suspicious/noExplicitAny: the method table is internal and serves every Scope (as src/methods/built-ins.ts)
  readonly enabled?: (core: Core<any>) => boolean;
  /** 2026 cache hints stamped on its result: one of the server's settings, or the method's own. */
  readonly cache?: keyof CacheSettings | CacheHint;
  /** 2026: may answer `input_required` (MRTR). */
  readonly mrtr?: boolean;
  /** Long-lived (listen): no idle timeout, no concurrency slot. */
  readonly stream?: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: the method table is internal and serves every Scope (as src/methods/built-ins.ts)
  run(core: Core<any>, call: MethodCall<any>): Promise<JsonObject> | JsonObject;
}

/** A client notification's handler: it runs synchronously in `route()`, and what it throws goes to the server log. */
export interface NotificationSpec {
  // biome-ignore lint/suspicious/noExplicitAny: the method table is internal and serves every Scope (as src/methods/built-ins.ts)
  run(core: Core<any>, params: JsonObject, facts: NotificationFacts): void | Promise<void>;
}

/** What a notification handler knows of its sender. */
export interface NotificationFacts {
  readonly scope: unknown;
  /** Who sent it ('' when anonymous). */
  readonly principal: string;
}

/** The server's method table as the core reads it (src/methods/table.ts). */
export interface MethodLookup {
  get(method: string): MethodSpec | undefined;
  has(method: string): boolean;
  notification(method: string): NotificationSpec | undefined;
}
