/**
 * `minimcp/otel`: MiniMCP's telemetry seam on `@opentelemetry/api` (an optional peer: install it, and
 * an OpenTelemetry SDK, to use this subpath). Spans go to the tracer provider, the duration
 * histogram and active-requests counter to the meter provider, and `_meta` / header trace context
 * is read and written with the registered propagator (the SDKs register W3C trace context and
 * baggage). Both providers default to the global ones, resolved when first used.
 *
 *   const mcp = new MiniMCP({ name: 'app', version: '1.0.0', telemetry: openTelemetry() });
 */
import {
  ROOT_CONTEXT, SpanKind as OtelSpanKind, SpanStatusCode, context, metrics, propagation, trace,
  type Context as OtelContext, type Histogram, type Link, type MeterProvider, type Span, type TextMapPropagator,
  type Tracer, type TracerProvider, type UpDownCounter,
} from '@opentelemetry/api';
import type { Context } from '../context/context.js';
import type { Attributes, AttributeValue, SpanKind, Telemetry, TelemetrySpan, TraceCarrier } from '../telemetry/types.js';

export interface OpenTelemetryOptions {
  /** Default: the global tracer provider. */
  tracerProvider?: TracerProvider;
  /** Default: the global meter provider. */
  meterProvider?: MeterProvider;
  /** Reads and writes trace context in `_meta` and headers. Default: the global propagator. */
  propagator?: TextMapPropagator;
}

/** The buckets the MCP conventions advise for `mcp.server.operation.duration`, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const SCOPE = 'minimcp';

const KINDS: Record<SpanKind, OtelSpanKind> = { server: OtelSpanKind.SERVER, client: OtelSpanKind.CLIENT, internal: OtelSpanKind.INTERNAL };

/** A span and the OpenTelemetry context that has it as the current span. */
class OtelSpan implements TelemetrySpan {
  constructor(
    readonly span: Span,
    readonly context: OtelContext,
    readonly propagator: TextMapPropagator,
  ) {}

  setAttribute(key: string, value: AttributeValue): void {
    this.span.setAttribute(key, value);
  }

  setError(type: string, message?: string): void {
    this.span.setAttribute('error.type', type);
    this.span.setStatus(message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message });
  }

  end(): void {
    this.span.end();
  }

  run<A, R>(fn: (arg: A) => R, arg: A): R {
    return context.with(this.context, fn, undefined, arg);
  }

  inject(carrier: Record<string, unknown>): void {
    this.propagator.inject(this.context, carrier, { set: (c, key, value) => void (c[key] = value) });
  }
}

const carrierGetter = {
  keys: (carrier: TraceCarrier) => Object.keys(carrier),
  get: (carrier: TraceCarrier, key: string) => carrier[key as keyof TraceCarrier],
};

class OpenTelemetry implements Telemetry {
  readonly #options: OpenTelemetryOptions;
  #tracer: Tracer | undefined;
  #duration: Histogram | undefined;
  #active: UpDownCounter | undefined;
  #upstream: Histogram | undefined;

  constructor(options: OpenTelemetryOptions) {
    this.#options = options;
  }

  get #propagator(): TextMapPropagator {
    return this.#options.propagator ?? propagation;
  }

  startSpan(name: string, kind: SpanKind, attributes: Attributes, parent: TelemetrySpan | TraceCarrier | undefined): TelemetrySpan {
    const tracer = (this.#tracer ??= (this.#options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE));
    const propagator = this.#propagator;
    let base = parent instanceof OtelSpan ? parent.context : context.active();
    let links: Link[] | undefined;
    if (parent !== undefined && !(parent instanceof OtelSpan)) {
      const remote = propagator.extract(ROOT_CONTEXT, parent as TraceCarrier, carrierGetter);
      if (trace.getSpanContext(remote) !== undefined) {
        // The conventions: the client's context is the parent; the ambient one (an HTTP server span) a link.
        const ambient = trace.getSpanContext(base);
        if (ambient !== undefined) links = [{ context: ambient }];
        base = remote;
      }
    }
    const span = tracer.startSpan(name, { kind: KINDS[kind], attributes, links }, base);
    return new OtelSpan(span, trace.setSpan(base, span), propagator);
  }

  recordDuration(seconds: number, attributes: Attributes): void {
    this.#instruments();
    this.#duration!.record(seconds, attributes);
  }

  addActive(delta: number, attributes: Attributes): void {
    this.#instruments();
    this.#active!.add(delta, attributes);
  }

  recordUpstreamDuration(seconds: number, attributes: Attributes): void {
    this.#instruments();
    this.#upstream!.record(seconds, attributes);
  }

  /** Made on first use, so a server built before the SDK started still reports to it. */
  #instruments(): void {
    if (this.#duration !== undefined) return;
    const meter = (this.#options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
    this.#duration = meter.createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description: 'MCP request duration as observed on the server, from receipt until the answer',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.#upstream = meter.createHistogram('mcp.gateway.upstream.duration', {
      unit: 's',
      description: 'A request the gateway forwarded, from sending it upstream until the upstream answered',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.#active = meter.createUpDownCounter('minimcp.server.active_requests', {
      unit: '{request}',
      description: 'MCP requests the server is handling',
    });
  }
}

/** MiniMCP telemetry on OpenTelemetry: pass it as the server's `telemetry` option. */
export function openTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  return new OpenTelemetry(options);
}

/**
 * The OpenTelemetry context of a request's handler span (the active context when it is not traced):
 * the parent for spans user code starts, with or without a context manager.
 */
export function traceContext(ctx: Pick<Context, 'span'>): OtelContext {
  const span = ctx.span;
  return span instanceof OtelSpan ? span.context : context.active();
}
