/**
 * Telemetry for the `minimcp-json-otel` cell: minimcp/otel on the OpenTelemetry SDK as production
 * runs it (spans batched, metrics aggregated), with an exporter that drops what it is given, so the
 * cell measures the cost in the server and nothing of a collector's network.
 */
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Telemetry } from 'minimcp';
import { openTelemetry } from 'minimcp/otel';

const dropping: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => {},
};

/** Aggregates on every record, like any reader; nothing collects it during the run. */
class IdleReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export function benchTelemetry(): Telemetry {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  return openTelemetry({ tracerProvider, meterProvider });
}
