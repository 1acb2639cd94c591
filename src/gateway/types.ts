/**
 * What the gateway needs of an upstream MCP server, whatever carries it (a supervised stdio child, a
 * remote Streamable HTTP endpoint): requests with their own notifications and questions routed back
 * to the call that caused them, and the connection's own notifications (list changes, updates).
 */
import type { JsonObject } from '../protocol/jsonrpc.js';

/** A server-to-client request an upstream may make during a call. */
export type UpstreamAsk = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** What one forwarded request hands the upstream client: where its side traffic goes. */
export interface CallHooks {
  /** Who asked (the caller's principal): a per-principal upstream picks its child by it. */
  principal?: string | undefined;
  /** Aborting it cancels the upstream request (`notifications/cancelled` upstream). */
  signal?: AbortSignal | undefined;
  /** `notifications/progress` for this request (progress, total, message). */
  progress?(progress: number, total: number | undefined, message: string | undefined): void;
  /** `notifications/message` sent while this request ran. */
  log?(params: JsonObject): void;
  /** An upstream question during this request, answered by the gateway's own client (the era bridge); `key` names it (2026 upstreams). */
  ask?(method: UpstreamAsk, params: JsonObject, key?: string): Promise<JsonObject>;
  /** The caller's client capabilities: what a 2026 upstream is told the client can answer. */
  capabilities?: JsonObject | undefined;
  /** The upstream closed the request's stream to be resumed later (2025 SSE polling): close the caller's too. */
  closeStream?(): void;
  /** The upstream made the call a task of its own: the caller's call becomes a task too (`ctx.task()`). */
  toTask?(): void;
}

/** A notification that concerns the whole upstream connection (list_changed, resources/updated). */
export type ConnectionListener = (method: string, params: JsonObject) => void;

export interface Upstream {
  /** The name used in logs, spans and metrics. */
  readonly name: string;
  /** The upstream's capabilities, once started. */
  readonly capabilities: JsonObject;
  /** Connects (spawns, initializes); resolves once the upstream answers, or rejects within the start bound. */
  start(): Promise<void>;
  /** One request; an upstream JSON-RPC error rejects with an UpstreamError. */
  request(method: string, params: JsonObject, hooks?: CallHooks): Promise<JsonObject>;
  /** Connection-wide notifications; returns the function that stops listening. */
  listen(listener: ConnectionListener): () => void;
  close(): Promise<void>;
}

/** An error object the upstream answered with, kept whole so the gateway can decide how to pass it on. */
export class UpstreamError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** The upstream is gone, restarting or did not answer in time: the call that waited gets -32603. */
export class UpstreamUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamUnavailable';
  }
}

/** What every upstream kind accepts. */
export interface UpstreamCommon {
  /** Name for logs and telemetry (default: the proxy's name, else 'upstream'). */
  name?: string;
  /** The largest upstream message accepted, in bytes (default 4 MiB; a larger answer fails the call with -32603). */
  maxMessageBytes?: number;
  /** How long connecting may take, in ms (default 10 000). */
  startTimeoutMs?: number;
  /** Where the upstream's stderr lines and the gateway's notes go (default: console.error with a prefix). */
  log?: (line: string) => void;
}
