/**
 * The `ctx` every handler receives (nested code reaches the same object through `getContext()`):
 * scope, cancellation, client facts, and the ways back to the client: progress, logs, notifications
 * and requests. Sending without a channel (plain request/response) is a silent no-op.
 */
import type { AuthInfo } from '../protocol/auth-info.js';
import type { Era } from '../protocol/revisions/revision.js';
import type { JsonObject, JsonRpcMessage, RequestId } from '../protocol/jsonrpc.js';
import {
  levelRank, type ClientCapabilities, type CreateMessageParams, type CreateMessageResult, type ElicitParams,
  type ElicitResult, type Implementation, type ListRootsResult, type LoggingLevel,
} from '../protocol/mcp-types.js';
import type { InputBroker } from './client-requests.js';
import { checkedAnswer } from './elicit-answer.js';
import type { StepLedger } from './steps.js';
import { createAsyncStorage, hasAsyncContext } from '../platform/async-context.js';
import type { TelemetrySpan } from '../telemetry/types.js';

export interface ClientFacts {
  capabilities: ClientCapabilities;
  info: Implementation | undefined;
}

/** The request a Context belongs to: the request object implements it (the Context only reads it). */
export interface ContextHost<Scope> {
  readonly scope: Scope;
  /** Who is asking (see the `principal` option); '' when anonymous. */
  readonly principal?: string;
  /** The verified access token's facts (HTTP with the `auth` option); undefined elsewhere. */
  readonly auth?: AuthInfo | undefined;
  readonly id: RequestId;
  readonly method: string;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly params: JsonObject;
  /** Aborted on cancellation, disconnect, timeout or shutdown (created on first read). */
  readonly signal: AbortSignal;
  /** The request stopped or ended: late notifications are dropped. */
  readonly live: boolean;
  touch(): void;
  readonly send: ((message: JsonRpcMessage) => void) | undefined;
  readonly client: ClientFacts;
  /** Logs at or above this rank are sent; undefined sends nothing. */
  readonly logThreshold: number | undefined;
  /** Elicitation, sampling and roots: built on first use. */
  broker(): InputBroker;
  /** `ctx.once()` steps: built on first use, with the results sealed in earlier rounds. */
  steps(): StepLedger;
  /** The transport's way to end the response stream early (2025 HTTP SSE); a no-op elsewhere. */
  endStream(): void;
  /** Begins the request's hand-off now: a task tool's call becomes a task (see Context.task). */
  handOffNow(): void;
  /** Once the call is a task: sets its statusMessage (from progress messages); undefined otherwise. */
  readonly statusNote?: ((message: string) => void) | undefined;
  /** The handler's span when the server traces requests (the `telemetry` option). */
  readonly span?: TelemetrySpan | undefined;
  /** The platform's way to keep work alive after the response (Workers); undefined elsewhere. */
  readonly waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

export interface AskOptions {
  /** The MRTR key of this input request (2026); defaults to one derived from call order. */
  key?: string;
}

const storage = createAsyncStorage<Context<unknown>>();

/** The context of the request being handled, from anywhere inside its handler. */
export function getContext<Scope = unknown>(): Context<Scope> {
  const ctx = storage.getStore();
  if (ctx) return ctx as Context<Scope>;
  if (!hasAsyncContext()) {
    throw new Error(
      'getContext() needs AsyncLocalStorage, which this runtime does not provide (on Cloudflare Workers set the ' +
        'compatibility flag nodejs_als or nodejs_compat); use the ctx argument your handler receives instead',
    );
  }
  throw new Error('getContext() was called outside a MiniMCP handler (or with the option asyncContext: false)');
}

/** Runs `fn(arg)` with `ctx` as the current context; the argument saves a closure per request. */
export const runWithContext = <A, T>(ctx: Context<unknown>, fn: (arg: A) => T, arg: A): T => storage.run(ctx, fn, arg);

export class Context<Scope = unknown> {
  readonly scope: Scope;
  /**
   * The caller's verified access token (HTTP with the `auth` option, see minimcp/auth): issuer,
   * subject, client id, scopes, expiry and claims. Undefined when the request carried none (stdio).
   */
  readonly auth: AuthInfo | undefined;
  readonly requestId: RequestId;
  readonly method: string;
  readonly era: Era;
  readonly protocolVersion: string;
  /** The request's `params._meta`, as sent. */
  readonly meta: JsonObject | undefined;
  readonly #host: ContextHost<Scope>;
  #lastProgress = -Infinity;

  constructor(host: ContextHost<Scope>) {
    this.scope = host.scope;
    this.auth = host.auth;
    this.requestId = host.id;
    this.method = host.method;
    this.era = host.era;
    this.protocolVersion = host.protocolVersion;
    this.meta = host.params._meta as JsonObject | undefined;
    this.#host = host;
  }

  /**
   * Who is asking: the key every per-principal bound and every piece of state is kept under (the
   * transport's, else the `principal` option's, else `scope.principal`); '' when anonymous.
   */
  get principal(): string {
    return this.#host.principal ?? '';
  }

  /** What the client declared about itself (2025: in `initialize`; 2026: in each request's `_meta`). */
  get client(): ClientFacts {
    return this.#host.client;
  }

  /**
   * The handler's span when the server traces requests (the `telemetry` option), else undefined.
   * Spans user code starts inside the handler are its children already where the backend tracks the
   * current context (OpenTelemetry with a context manager); `traceContext(ctx)` from minimcp/otel
   * gives the OpenTelemetry context explicitly.
   */
  get span(): TelemetrySpan | undefined {
    return this.#host.span;
  }

  /** Aborted on cancellation, disconnect, idle timeout or shutdown; a request that finished normally leaves it alone. */
  get signal(): AbortSignal {
    return this.#host.signal;
  }

  /** Sends a notification related to this request (dropped when there is no channel or it was cancelled). */
  notify(method: string, params?: JsonObject): void {
    const host = this.#host;
    host.touch();
    if (!host.send || !host.live) return;
    host.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /**
   * Reports progress when the client asked for it (a progressToken); values must increase, others are
   * dropped. In a task, `message` also becomes the task's statusMessage (at most one write per poll interval).
   */
  progress(progress: number, total?: number, message?: string): void {
    this.#host.touch();
    if (message !== undefined) this.#host.statusNote?.(message); // a task shows it as its statusMessage
    const token = this.meta?.progressToken;
    if ((typeof token !== 'string' && typeof token !== 'number') || !(progress > this.#lastProgress)) return;
    this.#lastProgress = progress;
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.notify('notifications/progress', params);
  }

  /** Sends a log message if its level is at or above the level the client asked for. */
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    this.#host.touch();
    const threshold = this.#host.logThreshold;
    if (threshold === undefined || levelRank(level) < threshold) return;
    this.notify('notifications/message', logger === undefined ? { level, data } : { level, logger, data });
  }

  /** Restarts the idle timer for a handler that is busy but has nothing to report. */
  resetTimeout(): void {
    this.#host.touch();
  }

  /**
   * Ends this request's response stream now, without cancelling the request (2025 SSE polling,
   * SEP-1699): the client reconnects with `GET` + `Last-Event-ID` and receives everything sent after
   * this, the result included. Lets a long task free its connection. A silent no-op where the
   * transport cannot resume (stdio, JSON answers, 2026 requests).
   */
  closeStream(): void {
    if (this.#host.live) this.#host.endStream();
  }

  /**
   * In a tool registered with `task`, for a client that takes tasks: the call becomes a task here
   * (the client gets the creation result once the handler returns its promise), and input asked
   * after this waits in the task (`input_required`, answered by `tasks/update`) instead of MRTR.
   * Without it, the call becomes a task as soon as the handler waits on anything but MRTR input.
   * Elsewhere a no-op.
   */
  task(): Promise<void> {
    this.#host.handOffNow();
    return Promise.resolve();
  }

  /**
   * Keeps `promise` running after this request's response is sent. On Cloudflare Workers the runtime
   * otherwise stops work that outlives the response; there this hands it to the platform's
   * `waitUntil` (given to the fetch handler). Elsewhere the process lives on and this only makes sure
   * a rejection is not left unhandled (it is reported to `console.error`).
   */
  waitUntil(promise: Promise<unknown>): void {
    const kept = promise.catch((error: unknown) => console.error('[minimcp] work kept with ctx.waitUntil() failed:', error));
    this.#host.waitUntil?.(kept);
  }

  /**
   * Runs `fn` once for this request, even across the rounds of a 2026 request that asks for input
   * (which runs the handler again from the top): the first round runs it and seals its result into
   * the signed requestState; a later round returns that result without running `fn`. Elsewhere it
   * simply runs `fn`. `key` names the step (unique within the request); the result must be a JSON
   * value or undefined, and what one request seals is bounded (`requestState.maxSteps`, `maxStepBytes`).
   * A `fn` that throws is not sealed: the next round runs it again.
   */
  once<T>(key: string, fn: () => T | PromiseLike<T>): Promise<T> {
    return this.#host.steps().run(key, fn);
  }

  /** Asks the user for input (form or URL mode). */
  elicit(params: ElicitParams, options?: AskOptions): Promise<ElicitResult> {
    const answer = this.#host.broker().request('elicitation/create', params, options?.key) as Promise<ElicitResult>;
    return answer.then((a) => checkedAnswer(params, a));
  }

  /** Asks the client's model for a completion. */
  sample(params: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult> {
    return this.#host.broker().request('sampling/createMessage', params, options?.key) as Promise<CreateMessageResult>;
  }

  /** Asks the client for its roots. */
  listRoots(options?: AskOptions): Promise<ListRootsResult> {
    return this.#host.broker().request('roots/list', {}, options?.key) as Promise<ListRootsResult>;
  }
}
