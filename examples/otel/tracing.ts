/**
 * The OpenTelemetry SDK set up the way an application does it, before the server starts: a tracer
 * provider (spans printed to the console here; use an OTLP exporter in production), a meter
 * provider, W3C trace context + baggage as the propagator (so `_meta.traceparent` is read), and an
 * AsyncLocalStorage context manager (so spans started in a handler find their parent on their own).
 * `@opentelemetry/sdk-node`'s NodeSDK does all of this in one call; this uses the smaller packages.
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { ConsoleMetricExporter, MeterProvider, type MetricReader, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';

export interface Tracing {
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
  shutdown(): Promise<void>;
}

export function startTracing(
  spans: SpanExporter = new ConsoleSpanExporter(),
  reader: MetricReader = new PeriodicExportingMetricReader({ exporter: new ConsoleMetricExporter(), exportIntervalMillis: 10_000 }),
): Tracing {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const meterProvider = new MeterProvider({ readers: [reader] });
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return {
    tracerProvider,
    meterProvider,
    shutdown: async () => {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
