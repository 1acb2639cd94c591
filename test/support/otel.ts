/**
 * The real OpenTelemetry SDK, in memory: spans to an InMemorySpanExporter (exported on end), metrics
 * to a reader collected on demand, W3C trace context + baggage as the propagator, and an
 * AsyncLocalStorage context manager (what a Node SDK registers) so `trace.getActiveSpan()` works.
 */
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { openTelemetry } from '../../src/otel/index.js';

class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

let globalsSet = false;

/** Registers the context manager and propagator once per test file (what an SDK's start does). */
function setGlobals(): void {
  if (globalsSet) return;
  globalsSet = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
}

export function otelHarness() {
  setGlobals();
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const telemetry = openTelemetry({ tracerProvider, meterProvider });
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  /** Data points of one metric by name (empty when it was never recorded). */
  const points = async (name: string): Promise<DataPoint<number | Histogram>[]> => {
    const { resourceMetrics } = await reader.collect();
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) if (metric.descriptor.name === name) return metric.dataPoints as DataPoint<number | Histogram>[];
    }
    return [];
  };
  return { telemetry, tracerProvider, exporter, spans, points };
}

/** A W3C traceparent with a fresh random trace and span id. */
export function traceparent(): { header: string; traceId: string; spanId: string } {
  const hex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
  const traceId = hex(16);
  const spanId = hex(8);
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
