/**
 * The server's options: what each one means, its checks and defaults, and the pieces of the core
 * built from them (state, limits, tasks). Kept apart from server.ts, which registers and dispatches.
 */
import type { AuthInfo } from './protocol/auth-info.js';
import { intOption } from './option-checks.js';
import { PrincipalQuota } from './limits/principal-quota.js';
import { RequestStateCodec, Signer } from './signing/request-state.js';
import { SessionCodec } from './signing/session-ids.js';
import { ConcurrencyGate, IdleSweeper } from './limits/concurrency.js';
import type { CacheSettings, Core, RequestInfo } from './request/core.js';
import { resolveState, type SharedState } from './state/index.js';
import type { TaskStore } from './state/task-store.js';
import { RateLimiter, rateLimits, type RateLimitOptions } from './limits/rate-limit.js';
import { TaskService, type TaskSettings } from './tasks/service.js';
import type { DefaultScopes, VisibilityFilter } from './primitives/visibility.js';
import type { JsonSchemaConverter } from './schema/standard-schema.js';
import type { CacheHint, Implementation } from './protocol/mcp-types.js';
import type { Telemetry } from './telemetry/types.js';

/** Server facts (`name`, `version`, `title`, `description`, `websiteUrl`, `icons`) plus the settings. */
export interface MiniMCPOptions<Scope = unknown> extends Implementation {
  instructions?: string;
  /** A handler silent for this long is aborted and answered "Request timed out" (-32603). Default 30 s. */
  idleTimeoutMs?: number;
  /** Handlers running at once. Default 100. */
  maxConcurrency?: number;
  /**
   * Handlers one named principal may run at once (and requests it may have queued): one principal
   * cannot take the whole gate. Default: half of maxConcurrency, rounded up.
   */
  maxConcurrencyPerPrincipal?: number;
  /** Requests that may wait for a slot; past it, an immediate overload answer. Default 4 x maxConcurrency. */
  maxQueue?: number;
  /**
   * Long-lived streams open at once, all principals: 2026 `subscriptions/listen` streams, 2025 GET
   * streams and 2025 `tasks/result` waits (they hold no handler slot); past it, 503 with Retry-After. Default 1000.
   */
  maxStreams?: number;
  /** Long-lived streams (as above) of any one named principal (see `principal`); past it, 503 with Retry-After. Default 10. */
  maxStreamsPerPrincipal?: number;
  /**
   * Per-principal rate limits: requests and request body bytes per second, each a token bucket with a
   * burst, kept in `state.rates` (shared by every instance on Redis). Past them: HTTP 429 with
   * `Retry-After`, checked before the body is read. Anonymous callers are not limited here; stdio is
   * not limited (its one client owns the process). Defaults: 200 requests per second (burst 400),
   * 1 MiB of bodies per second (burst 8 MiB); `limitsFor` gives some principals others. `false`
   * turns them off. See docs/security.md.
   */
  rateLimit?: RateLimitOptions | false;
  /** How long a queued request waits for a slot. Default 5 s. */
  queueTimeoutMs?: number;
  /** How long a 2025 handler waits for the client's answer to elicitation, sampling or roots. Default 5 min. */
  clientRequestTimeoutMs?: number;
  /** Items per page of every list. Default 100. */
  pageSize?: number;
  /** 2026 cache hints for discover, each list and reads (defaults: lists 60 s public, reads 0 private). */
  cache?: Partial<CacheSettings>;
  /**
   * The secret that signs MRTR requestState and 2025 session ids. Set `secret` (32 bytes or more)
   * when several instances serve the same clients, so each accepts what the others signed. `ttlMs`:
   * how long a state stays valid (default 10 min). `maxSteps` and `maxStepBytes`: what `ctx.once()`
   * may seal into one request's state (defaults 32 steps, 65536 bytes of keys and JSON results).
   */
  // `| undefined`: `secret: process.env.X` compiles under exactOptionalPropertyTypes (absent means the default).
  requestState?: {
    secret?: string | Uint8Array | undefined;
    ttlMs?: number | undefined;
    maxSteps?: number | undefined;
    maxStepBytes?: number | undefined;
  };
  /**
   * Who is asking, from the scope (e.g. the user your hand-made authentication verified). Without it
   * (or when it names nobody), the scope's own `principal` property when that is a string. Under the
   * HTTP `auth` option the verified token's principal (`ctx.auth.principal`, `iss` + `sub`) always takes
   * part and this can only refine it (a tenant within the user). MRTR state, 2025 sessions, cancellation,
   * server-to-client requests and resumable streams are bound to it, and each named principal gets a
   * share of the concurrency gate (maxConcurrencyPerPrincipal). '' (or nothing) is anonymous: anonymous
   * callers cannot be told apart, so only the server-wide limits apply to them.
   */
  principal?: (scope: Scope | undefined) => string | undefined;
  /**
   * Which primitives a caller may see, for every tool, prompt, resource and template (after each one's
   * own `visible` rule). Hidden ones answer exactly as unregistered ones. See docs/authorization.md.
   */
  visible?: VisibilityFilter<Scope>;
  /**
   * The OAuth scopes an operation needs when its primitive names none (`scopes` on a tool, prompt,
   * resource or template): a list for every primitive, or a function of the primitive. Checked
   * against the caller's token (`ctx.auth`): a token without them gets 403 `insufficient_scope`
   * (HTTP) and the lists leave the primitive out. Requests without a token (stdio, HTTP without the
   * `auth` option) are not subject to scopes. See docs/authorization.md.
   */
  scopes?: DefaultScopes;
  /** Converts Standard Schemas that cannot describe themselves (e.g. Valibot's `toJsonSchema`). */
  toJsonSchema?: JsonSchemaConverter;
  /** Advertise a primitive even before anything is registered (for servers that register later). */
  capabilities?: { tools?: boolean; prompts?: boolean; resources?: boolean };
  /**
   * The state that outlives one request (notification bus, 2025 answers, cancels, sessions, SSE
   * replay, tasks): in memory by default. `redisState()` from minimcp/redis shares it between instances.
   */
  state?: Partial<SharedState>;
  /**
   * Make `getContext()` work anywhere inside a handler (AsyncLocalStorage). Default on. On Node 20 it
   * costs every promise a hook (roughly 10-30% of a no-op HTTP request, measured); `false` removes that cost, and
   * handlers then use the `ctx` argument only.
   */
  asyncContext?: boolean;
  /**
   * Tasks (tools registered with `task: 'optional' | 'required'`): where they are kept (memory by
   * default; a shared store lets any instance answer for them) and their limits.
   */
  tasks?: { store?: TaskStore } & Partial<TaskSettings>;
  /**
   * Traces and metrics: a span per request named by OpenTelemetry's MCP conventions, with its
   * parent from `_meta.traceparent`, plus the request duration and active requests. `openTelemetry()`
   * from minimcp/otel implements it; off (and free) when unset. See docs/observability.md.
   */
  telemetry?: Telemetry;
  /** Include error messages of unexpected failures in answers. Off by default: they may leak internals. */
  debug?: boolean;
  /**
   * What a client reads when a handler fails unexpectedly (throws anything but a `UserError` or an
   * `McpError`): the text of a tool's `isError` result and the message of a -32603. Default: 'The tool
   * failed' for a tool, 'Internal error' otherwise. The error itself goes to `onError`.
   */
  errorMessage?: string;
  /** The server log for unexpected errors. Default: stderr. */
  onError?: (error: unknown, request: RequestInfo | undefined) => void;
  /**
   * The server log's debug level: what stopped a request without anything failing (cancelled by the
   * client, timed out, stopped by shutdown or a closed connection), once per request, naming the
   * method, the tool, prompt or resource, and the reason. Default: one line on stderr.
   */
  onDebug?: (message: string, request: RequestInfo | undefined) => void;
}

// Lists change rarely and say so with list_changed; reads may be per user and live, so they are not cached.
/**
 * Who is asking; '' is anonymous. What the app names (the `principal` option, else the scope's own
 * `principal` string) is the principal, except under a verified token (`auth`): there the token's
 * principal (`iss` + `sub`) always takes part, and the app's name can only refine it (a tenant within
 * the user). A name two tokens share (a team, a header) must never make two people one principal.
 */
export function principalFrom<Scope>(scope: Scope | undefined, option: MiniMCPOptions<Scope>['principal'], auth?: AuthInfo): string {
  const named = appPrincipal(scope, option);
  if (auth === undefined) return named;
  return refinedPrincipal(auth, named);
}

function appPrincipal<Scope>(scope: Scope | undefined, option: MiniMCPOptions<Scope>['principal']): string {
  if (option !== undefined) {
    const named = option(scope);
    if (typeof named === 'string') return named;
  }
  const own = typeof scope === 'object' && scope !== null ? (scope as { principal?: unknown }).principal : undefined;
  return typeof own === 'string' ? own : '';
}

/**
 * The token's principal, refined by what the app named. A name that says only what the token says
 * already (nothing, its subject, its principal) adds nothing, so a server that named the token's own
 * subject keeps its principals (and 2025 sessions) as they were. JSON keeps the two parts apart.
 */
function refinedPrincipal(auth: AuthInfo, named: string): string {
  if (named === '' || named === auth.subject || named === auth.principal) return auth.principal;
  return JSON.stringify([auth.principal, named]);
}

const LIST_HINT: CacheHint = { ttlMs: 60_000, cacheScope: 'public' };
const DEFAULT_CACHE: CacheSettings = {
  discover: LIST_HINT,
  tools: LIST_HINT,
  prompts: LIST_HINT,
  resources: LIST_HINT,
  resourceTemplates: LIST_HINT,
  reads: { ttlMs: 0, cacheScope: 'private' },
};

function errorMessageOption(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new TypeError(`MiniMCP option errorMessage must be a non-empty string, got ${String(value)}`);
  return value;
}

function checkCacheHint(name: string, hint: CacheHint): CacheHint {
  if (!Number.isInteger(hint.ttlMs) || hint.ttlMs < 0 || (hint.cacheScope !== 'public' && hint.cacheScope !== 'private')) {
    throw new TypeError(`MiniMCP option cache.${name} needs an integer ttlMs >= 0 and cacheScope "public" or "private"`);
  }
  return { ttlMs: hint.ttlMs, cacheScope: hint.cacheScope };
}

function taskService(options: NonNullable<MiniMCPOptions['tasks']>, shared: TaskStore): TaskService {
  const maxTtlMs = intOption(options, 'maxTtlMs', 86_400_000);
  const defaultTtlMs = intOption(options, 'defaultTtlMs', 3_600_000);
  // The floor defaults to 10 s, or lower when the server itself chose a shorter default.
  const minTtlMs = intOption(options, 'minTtlMs', Math.min(10_000, defaultTtlMs, maxTtlMs), { max: maxTtlMs });
  return new TaskService(options.store ?? shared, {
    defaultTtlMs: Math.max(minTtlMs, defaultTtlMs),
    maxTtlMs,
    minTtlMs,
    pollIntervalMs: intOption(options, 'pollIntervalMs', 1_000),
    maxPerPrincipal: intOption(options, 'maxPerPrincipal', 100),
    maxTasks: intOption(options, 'maxTasks', 10_000),
    maxResultChars: intOption(options, 'maxResultChars', 1_048_576),
    maxStoredCharsPerPrincipal: intOption(options, 'maxStoredCharsPerPrincipal', 16 * 1_048_576),
    maxStoredChars: intOption(options, 'maxStoredChars', 128 * 1_048_576),
    heartbeatMs: intOption(options, 'heartbeatMs', 10_000),
  });
}

/** The MRTR state's signer, lifetime and what `ctx.once()` may seal in it. */
function stateCodec(signer: Signer, options: NonNullable<MiniMCPOptions['requestState']>): RequestStateCodec {
  return new RequestStateCodec(signer, intOption(options, 'ttlMs', 600_000), {
    maxSteps: intOption(options, 'maxSteps', 32, { max: 1_000 }),
    // A state over 1,000,000 characters is refused when opened; base64url makes 512 KiB about 700,000.
    maxStepBytes: intOption(options, 'maxStepBytes', 65_536, { max: 524_288 }),
  });
}

/** The state pieces (memory by default); shared ones need the secret every instance signs with. */
function stateOf(options: MiniMCPOptions<never>): SharedState {
  const state = resolveState(options.state ?? {});
  if (state.shared && options.requestState?.secret === undefined) {
    throw new TypeError('MiniMCP: shared state needs requestState.secret (the same on every instance), or sessions and MRTR state signed on one instance will not open on another');
  }
  return state;
}

/** The `rateLimit` option's limiter on the state's buckets; undefined when turned off. */
function rateLimiter(options: MiniMCPOptions<never>, state: SharedState): RateLimiter | undefined {
  const limits = rateLimits(options.rateLimit);
  const limitsFor = options.rateLimit === false ? undefined : options.rateLimit?.limitsFor;
  if (limitsFor !== undefined && typeof limitsFor !== 'function') throw new TypeError('MiniMCP option rateLimit.limitsFor must be a function');
  return limits === undefined ? undefined : new RateLimiter(limits, state.rates, limitsFor);
}

/** The parts of the core that come from the options alone: facts, state, limits, codecs, tasks and settings. */
export type Wired = Pick<Core<never>, 'info' | 'instructions' | 'state' | 'rates' | 'gate' | 'idle' | 'streams' | 'stateCodec' | 'sessions' | 'tasks' | 'telemetry' | 'settings'>;

/** Checks the options and builds what they configure; throws a TypeError naming the first bad option. */
export function wire(options: MiniMCPOptions<never>): Wired {
  if (typeof options?.name !== 'string' || !options.name) throw new TypeError('MiniMCP option name must be a non-empty string');
  if (typeof options.version !== 'string' || !options.version) throw new TypeError('MiniMCP option version must be a non-empty string');
  const maxConcurrency = intOption(options, 'maxConcurrency', 100);
  const idleTimeoutMs = intOption(options, 'idleTimeoutMs', 30_000);
  const { name, version, title, description, websiteUrl, icons } = options;
  const info: Implementation = JSON.parse(JSON.stringify({ name, version, title, description, websiteUrl, icons }));
  const cache = { ...DEFAULT_CACHE, ...options.cache };
  for (const key of Object.keys(cache) as (keyof CacheSettings)[]) cache[key] = checkCacheHint(key, cache[key]);
  const signer = new Signer(options.requestState?.secret);
  const state = stateOf(options);
  return {
    info,
    instructions: options.instructions,
    state,
    rates: rateLimiter(options, state),
    gate: new ConcurrencyGate(
      maxConcurrency,
      intOption(options, 'maxQueue', maxConcurrency * 4),
      intOption(options, 'queueTimeoutMs', 5_000),
      intOption(options, 'maxConcurrencyPerPrincipal', Math.ceil(maxConcurrency / 2), { max: maxConcurrency }),
    ),
    idle: new IdleSweeper(idleTimeoutMs),
    streams: new PrincipalQuota(intOption(options, 'maxStreams', 1_000), intOption(options, 'maxStreamsPerPrincipal', 10)),
    stateCodec: stateCodec(signer, options.requestState ?? {}),
    sessions: new SessionCodec(signer),
    tasks: taskService(options.tasks ?? {}, state.tasks),
    telemetry: options.telemetry,
    settings: {
      pageSize: intOption(options, 'pageSize', 100, { max: 10_000 }),
      idleTimeoutMs,
      clientRequestTimeoutMs: intOption(options, 'clientRequestTimeoutMs', 300_000),
      cache,
      debug: options.debug === true,
      errorMessage: errorMessageOption(options.errorMessage),
      asyncContext: options.asyncContext !== false,
    },
  };
}
