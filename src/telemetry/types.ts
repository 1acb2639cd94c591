/**
 * The seam between MiniMCP and a tracing/metrics backend. The core names and attributes spans the
 * way OpenTelemetry's MCP semantic conventions say (src/telemetry/request-trace.ts); a backend only
 * starts, annotates and ends them. `minimcp/otel` implements it on `@opentelemetry/api`; any other
 * backend can too. Nothing here is used unless the server's `telemetry` option is set.
 */

export type SpanKind = 'server' | 'client' | 'internal';
export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

/** W3C trace context as it travels in a request's `params._meta` (SEP-414) or in HTTP headers. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
}

/** One span the backend started. */
export interface TelemetrySpan {
  setAttribute(key: string, value: AttributeValue): void;
  /** The operation failed: `error.type` is set and the status becomes an error with this message. */
  setError(type: string, message?: string): void;
  end(): void;
  /** Runs `fn(arg)` with this span as the current one, so spans user code starts inside become its children. */
  run<A, R>(fn: (arg: A) => R, arg: A): R;
  /** Writes this span's trace context (traceparent, tracestate, baggage) into an outgoing request's `_meta`. */
  inject(carrier: Record<string, unknown>): void;
}

export interface Telemetry {
  /**
   * Starts a span. `parent` is a local span (children), a remote carrier (a request's `_meta` or
   * HTTP headers), or undefined: the backend's ambient context, if any.
   */
  startSpan(name: string, kind: SpanKind, attributes: Attributes, parent: TelemetrySpan | TraceCarrier | undefined): TelemetrySpan;
  /** `mcp.server.operation.duration`: one request, received to answered, in seconds. */
  recordDuration(seconds: number, attributes: Attributes): void;
  /** Requests in progress, by method: +1 when one starts, -1 when it is answered. */
  addActive(delta: number, attributes: Attributes): void;
  /** `mcp.gateway.upstream.duration`: one request a gateway forwarded, sent to answered, in seconds (src/gateway/). */
  recordUpstreamDuration?(seconds: number, attributes: Attributes): void;
}

/** A server-to-client request being traced: its CLIENT span, and its params with the trace context in `_meta`. */
export interface OutgoingRequest<P> {
  span: TelemetrySpan;
  params: P;
}

/** What the input brokers see of a traced request (src/context/client-requests.ts). */
export interface ClientRequestTracer {
  /** `endsWithRequest`: the span closes when the request is answered (MRTR: the round), not by its caller. */
  clientRequest<P extends object>(method: string, params: P, endsWithRequest: boolean): OutgoingRequest<P>;
}
