/**
 * The `ctx` every handler receives (nested code reaches the same object through `getContext()`):
 * scope, cancellation, client facts, and the ways back to the client: progress, logs, notifications
 * and requests. Sending without a channel (plain request/response) is a silent no-op.
 */
import type { Era } from '../protocol/versions.js';
import type { JsonObject, JsonRpcMessage, RequestId } from '../protocol/jsonrpc.js';
import {
  LOGGING_LEVELS, type ClientCapabilities, type CreateMessageParams, type CreateMessageResult, type ElicitParams,
  type ElicitResult, type Implementation, type ListRootsResult, type LoggingLevel,
} from '../types.js';
import type { InputBroker } from './client-requests.js';
import { createAsyncStorage, hasAsyncContext } from '../platform/async-context.js';

export interface ClientFacts {
  capabilities: ClientCapabilities;
  info: Implementation | undefined;
}

/** Everything a Context is built from; filled by the dispatcher once per request. */
export interface ContextInit<Scope> {
  scope: Scope;
  /** The request's lifecycle: its signal (created on first read) and idle clock. */
  execution: { readonly signal: AbortSignal; readonly aborted: boolean; touch(): void };
  requestId: RequestId;
  method: string;
  era: Era;
  protocolVersion: string;
  client: ClientFacts;
  meta: JsonObject | undefined;
  /** Logs at or above this level are sent; undefined sends nothing. */
  logThreshold: number | undefined;
  send: ((message: JsonRpcMessage) => void) | undefined;
  broker: InputBroker;
  /** The transport's way to end the response stream early (2025 HTTP SSE); undefined elsewhere. */
  closeStream?: (() => void) | undefined;
  /** The platform's way to keep work alive after the response (Workers); undefined elsewhere. */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
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
  if (!hasAsyncContext) {
    throw new Error(
      'getContext() needs AsyncLocalStorage, which this runtime does not provide (on Cloudflare Workers set the ' +
        'compatibility flag nodejs_als or nodejs_compat); use the ctx argument your handler receives instead',
    );
  }
  throw new Error('getContext() was called outside a MiniMCP handler (or with the option asyncContext: false)');
}

export const runWithContext = <T>(ctx: Context<unknown>, fn: () => T): T => storage.run(ctx, fn);

export const levelRank = (level: string): number => LOGGING_LEVELS.indexOf(level as LoggingLevel);

export class Context<Scope = unknown> {
  readonly scope: Scope;
  readonly requestId: RequestId;
  readonly method: string;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly client: ClientFacts;
  /** The request's `params._meta`, as sent. */
  readonly meta: JsonObject | undefined;
  readonly #init: ContextInit<Scope>;
  #lastProgress = -Infinity;

  constructor(init: ContextInit<Scope>) {
    this.scope = init.scope;
    this.requestId = init.requestId;
    this.method = init.method;
    this.era = init.era;
    this.protocolVersion = init.protocolVersion;
    this.client = init.client;
    this.meta = init.meta;
    this.#init = init;
  }

  /** Aborted on cancellation, disconnect, timeout or the end of the request. */
  get signal(): AbortSignal {
    return this.#init.execution.signal;
  }

  /** Sends a notification related to this request (dropped when there is no channel or it was cancelled). */
  notify(method: string, params?: JsonObject): void {
    this.#init.execution.touch();
    if (!this.#init.send || this.#init.execution.aborted) return;
    this.#init.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Reports progress when the client asked for it (a progressToken); values must increase, others are dropped. */
  progress(progress: number, total?: number, message?: string): void {
    this.#init.execution.touch();
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
    this.#init.execution.touch();
    const threshold = this.#init.logThreshold;
    if (threshold === undefined || levelRank(level) < threshold) return;
    this.notify('notifications/message', logger === undefined ? { level, data } : { level, logger, data });
  }

  /** Restarts the idle timer for a handler that is busy but has nothing to report. */
  resetTimeout(): void {
    this.#init.execution.touch();
  }

  /**
   * Ends this request's response stream now, without cancelling the request (2025 SSE polling,
   * SEP-1699): the client reconnects with `GET` + `Last-Event-ID` and receives everything sent after
   * this, the result included. Lets a long task free its connection. A silent no-op where the
   * transport cannot resume (stdio, JSON answers, 2026 requests).
   */
  closeStream(): void {
    if (!this.#init.execution.aborted) this.#init.closeStream?.();
  }

  /**
   * Keeps `promise` running after this request's response is sent. On Cloudflare Workers the runtime
   * otherwise stops work that outlives the response; there this hands it to the platform's
   * `waitUntil` (given to the fetch handler). Elsewhere the process lives on and this only makes sure
   * a rejection is not left unhandled (it is reported to `console.error`).
   */
  waitUntil(promise: Promise<unknown>): void {
    const kept = promise.catch((error: unknown) => console.error('[minimcp] work kept with ctx.waitUntil() failed:', error));
    this.#init.waitUntil?.(kept);
  }

  /** Asks the user for input (form or URL mode). */
  elicit(params: ElicitParams, options?: AskOptions): Promise<ElicitResult> {
    return this.#init.broker.request('elicitation/create', params, options?.key) as Promise<ElicitResult>;
  }

  /** Asks the client's model for a completion. */
  sample(params: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult> {
    return this.#init.broker.request('sampling/createMessage', params, options?.key) as Promise<CreateMessageResult>;
  }

  /** Asks the client for its roots. */
  listRoots(options?: AskOptions): Promise<ListRootsResult> {
    return this.#init.broker.request('roots/list', {}, options?.key) as Promise<ListRootsResult>;
  }
}
