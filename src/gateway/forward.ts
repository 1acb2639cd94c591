/**
 * One caller's request passed to the upstream, inside the handler that serves it: the upstream's
 * progress and logs become the caller's, the caller's cancellation (or disconnect) cancels the
 * upstream request, and the upstream's questions are asked with the handler's own `ctx.elicit`,
 * `ctx.sample` and `ctx.listRoots`. That makes the era bridge: a 2025 caller gets the question as a
 * request on its stream, a 2026 caller an `input_required` result (the retry runs the call again
 * upstream, where the same question finds its answer in `inputResponses`).
 */
import type { Context } from '../context/context.js';
import { ProtocolError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Telemetry, TelemetrySpan } from '../telemetry/types.js';
import type { ElicitParams, CreateMessageParams, LoggingLevel } from '../protocol/mcp-types.js';
import { callerError } from './errors.js';
import type { CallHooks, Upstream, UpstreamAsk } from './types.js';

const LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

function askWith(ctx: Context<unknown>, method: UpstreamAsk, params: JsonObject, key: string | undefined): Promise<JsonObject> {
  const options = key === undefined ? undefined : { key };
  if (method === 'elicitation/create') return ctx.elicit(params as unknown as ElicitParams, options) as Promise<never>;
  if (method === 'sampling/createMessage') return ctx.sample(params as unknown as CreateMessageParams, options) as Promise<never>;
  return ctx.listRoots(options) as Promise<never>;
}

/** The hooks that tie an upstream request to the caller's request; `raised` keeps a protocol error a question met. */
function hooksFor(ctx: Context<unknown>, raised: { error?: ProtocolError }): CallHooks {
  return {
    principal: ctx.principal,
    capabilities: ctx.client.capabilities as JsonObject,
    signal: ctx.signal,
    progress: (progress, total, message) => ctx.progress(progress, total, message),
    log: (params) => {
      const level = LEVELS.has(params.level as string) ? (params.level as LoggingLevel) : 'info';
      ctx.log(level, params.data, typeof params.logger === 'string' ? params.logger : undefined);
    },
    toTask: () => void ctx.task(),
    closeStream: () => ctx.closeStream(),
    ask: async (method, params, key) => {
      try {
        return await askWith(ctx, method, params, key);
      } catch (error) {
        // -32021 (a 2026 caller without the capability) is the caller's answer, not the upstream's.
        if (error instanceof ProtocolError) raised.error = error;
        throw error;
      }
    },
  };
}

/** The span's trace context in the upstream request's `_meta` (SEP-414), so the upstream's spans join the trace. */
function traced(params: JsonObject, span: TelemetrySpan | undefined): JsonObject {
  if (span === undefined) return params;
  const carrier: Record<string, unknown> = {};
  span.inject(carrier);
  return { ...params, _meta: { ...(params._meta as JsonObject | undefined), ...carrier } };
}

export interface ForwardSettings {
  readonly upstream: Upstream;
  readonly telemetry: Telemetry | undefined;
}

/** Forwards one request; an upstream failure becomes the caller's error (src/gateway/errors.ts). */
export async function forward(settings: ForwardSettings, method: string, params: JsonObject, ctx: Context<unknown>, uri?: string): Promise<JsonObject> {
  const { upstream, telemetry } = settings;
  const raised: { error?: ProtocolError } = {};
  const started = performance.now();
  const span = telemetry?.startSpan(`${method} ${upstream.name}`, 'client', { 'mcp.method.name': method, 'mcp.gateway.upstream': upstream.name }, ctx.span);
  try {
    const result = await upstream.request(method, traced(params, span), hooksFor(ctx, raised));
    if (raised.error !== undefined) throw raised.error;
    return result;
  } catch (error) {
    const mapped = raised.error ?? callerError(error, upstream.name, uri);
    span?.setError(mapped instanceof ProtocolError ? String(mapped.code) : 'upstream_failed', (mapped as Error)?.message);
    throw mapped;
  } finally {
    span?.end();
    telemetry?.recordUpstreamDuration?.((performance.now() - started) / 1000, { 'mcp.method.name': method, 'mcp.gateway.upstream': upstream.name });
  }
}
