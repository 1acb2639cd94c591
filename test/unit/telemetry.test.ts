/**
 * Telemetry through the core with the real OpenTelemetry SDK (minimcp/otel): the SERVER span per
 * request and its parent (`_meta` in both eras, else the HTTP header), the MCP convention names and
 * attributes, error status, child spans (handler, 2025 client requests, MRTR rounds), user spans,
 * metrics, and nothing at all when the option is off.
 */
import { SpanKind, SpanStatusCode, propagation, context as otelContext, trace } from '@opentelemetry/api';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MiniMCP, type Connection, type MessageFacts } from '../../src/index.js';
import { traceContext } from '../../src/otel/index.js';
import { serveStdio } from '../../src/transports/stdio.js';
import { otelHarness, parentOf, traceparent } from '../support/otel.js';

const V = '2026-07-28';
const modernMeta = (extra: Record<string, unknown> = {}, caps: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': caps, ...extra,
});
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const schema = { type: 'object', properties: { n: { type: 'string' } } };

/** `traced: false`: the same server without the `telemetry` option (the user's own spans still go to the SDK). */
function server(otel: ReturnType<typeof otelHarness>, traced = true) {
  const mcp = new MiniMCP({ name: 'traced', version: '1.0.0', onError: () => {}, telemetry: traced ? otel.telemetry : undefined });
  const user = otel.tracerProvider.getTracer('user');
  mcp.tool('add', {}, (args: Record<string, unknown>) => String(Number(args.a) + Number(args.b)));
  mcp.tool('slow', {}, async (_a, ctx) => {
    // A span the user's own code starts: the context manager makes the handler span its parent.
    const work = user.startSpan('user work');
    await sleep(5);
    work.end();
    const explicit = user.startSpan('explicit', {}, traceContext(ctx));
    explicit.end();
    return propagation.getBaggage(otelContext.active())?.getEntry('user')?.value ?? 'no baggage';
  });
  mcp.tool('fails', {}, () => {
    throw new Error('broken');
  });
  mcp.tool('ask', {}, async (_a, ctx) => JSON.stringify(await ctx.elicit({ message: 'Name?', requestedSchema: schema })));
  mcp.prompt('greet', {}, () => 'hello');
  mcp.resource('test://r', {}, () => 'r');
  return mcp;
}

async function initialized(mcp: MiniMCP): Promise<Connection> {
  const connection: Connection = { id: 'c1' };
  await mcp.handle(req('initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } }, 0), { connection });
  return connection;
}

const headers = (map: Record<string, string>): MessageFacts['headers'] => ({ get: (name) => map[name.toLowerCase()] ?? null });

describe('off by default', () => {
  it('emits no span and no metric, and ctx.span is undefined, even with an SDK running', async () => {
    const otel = otelHarness();
    trace.setGlobalTracerProvider(otel.tracerProvider);
    try {
      const mcp = server(otel, false);
      let seen: unknown = 'unset';
      mcp.tool('peek', {}, (_a, ctx) => {
        seen = ctx.span;
        return 'ok';
      });
      const tp = traceparent();
      await mcp.dispatch(req('tools/call', { name: 'peek', _meta: { traceparent: tp.header } }));
      await mcp.dispatch(req('tools/call', { name: 'slow', arguments: {} }));
      expect(seen).toBeUndefined();
      // Only the user's own spans (from the global provider) exist: nothing from MiniMCP.
      expect(otel.spans().map((s) => s.name).sort()).toEqual(['explicit', 'user work']);
      expect(otel.spans().every((s) => s.instrumentationScope.name === 'user')).toBe(true);
      expect(await otel.points('mcp.server.operation.duration')).toEqual([]);
    } finally {
      trace.disable();
    }
  });
});

describe('the SERVER span of a request', () => {
  it('2025: parent, tracestate and baggage from params._meta; convention name and attributes; a handler child', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    const connection = await initialized(mcp);
    const tp = traceparent();
    const meta = { traceparent: tp.header, tracestate: 'vendor=abc', baggage: 'user=ada' };
    const { reply } = await mcp.dispatch(req('tools/call', { name: 'slow', arguments: {}, _meta: meta }, 7), { connection });
    expect((reply as any).result.content[0].text).toBe('ada');
    const call = otel.spans().find((s) => s.name === 'tools/call slow')!;
    expect(call.kind).toBe(SpanKind.SERVER);
    expect(call.spanContext().traceId).toBe(tp.traceId);
    expect(parentOf(call)).toBe(tp.spanId);
    expect(call.parentSpanContext?.traceState?.get('vendor')).toBe('abc');
    expect(call.attributes).toEqual({
      'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'slow', 'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '7', 'mcp.protocol.version': '2025-11-25',
    });
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    const handler = otel.spans().find((s) => s.name === 'handler tools/call slow')!;
    expect(parentOf(handler)).toBe(call.spanContext().spanId);
    // The user's spans: one through the context manager, one through traceContext(ctx).
    for (const name of ['user work', 'explicit']) {
      expect(parentOf(otel.spans().find((s) => s.name === name)!)).toBe(handler.spanContext().spanId);
    }
  });

  it('2026: the parent from _meta next to the io.modelcontextprotocol keys; prompt and resource attributes', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    const tp = traceparent();
    await mcp.dispatch(req('prompts/get', { name: 'greet', _meta: modernMeta({ traceparent: tp.header }) }));
    await mcp.dispatch(req('resources/read', { uri: 'test://r', _meta: modernMeta() }, 2));
    const prompt = otel.spans().find((s) => s.name === 'prompts/get greet')!;
    expect(parentOf(prompt)).toBe(tp.spanId);
    expect(prompt.attributes).toMatchObject({ 'mcp.method.name': 'prompts/get', 'gen_ai.prompt.name': 'greet', 'mcp.protocol.version': V });
    // A resource URI is an attribute, never part of the span name (high cardinality); no parent: a root span.
    const read = otel.spans().find((s) => s.name === 'resources/read')!;
    expect(read.attributes).toMatchObject({ 'mcp.resource.uri': 'test://r', 'jsonrpc.request.id': '2' });
    expect(read.parentSpanContext).toBeUndefined();
  });

  it('falls back to the HTTP traceparent header; _meta wins over the header', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    const header = traceparent();
    const inMeta = traceparent();
    const http = headers({ traceparent: header.header, baggage: 'user=grace' });
    const a = await mcp.dispatch(req('tools/call', { name: 'slow', arguments: {} }, 1), { headers: http });
    expect((a.reply as any).result.content[0].text).toBe('grace');
    await mcp.dispatch(req('tools/call', { name: 'add', arguments: { a: 1, b: 2 }, _meta: { traceparent: inMeta.header } }, 2), { headers: http });
    const [first, second] = otel.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(parentOf(first!)).toBe(header.spanId);
    expect(first!.attributes).toMatchObject({ 'network.transport': 'tcp', 'network.protocol.name': 'http' });
    expect(parentOf(second!)).toBe(inMeta.spanId);
    expect(second!.spanContext().traceId).toBe(inMeta.traceId);
  });

  it('a current span (an HTTP server instrumentation\'s) is the parent without _meta, and a link when _meta gives the parent', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    const ambient = otel.tracerProvider.getTracer('http').startSpan('POST /mcp');
    const inMeta = traceparent();
    await otelContext.with(trace.setSpan(otelContext.active(), ambient), async () => {
      await mcp.dispatch(req('tools/call', { name: 'add', arguments: { a: 1, b: 1 } }, 1));
      await mcp.dispatch(req('tools/call', { name: 'add', arguments: { a: 1, b: 1 }, _meta: { traceparent: inMeta.header } }, 2));
    });
    ambient.end();
    const [plain, withMeta] = otel.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(parentOf(plain!)).toBe(ambient.spanContext().spanId);
    expect(plain!.links).toEqual([]);
    expect(parentOf(withMeta!)).toBe(inMeta.spanId);
    expect(withMeta!.links.map((l) => l.context.spanId)).toEqual([ambient.spanContext().spanId]);
  });

  it('error status: a JSON-RPC error code, tool_error for an isError result, _OTHER for an unknown method', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    await mcp.dispatch(req('tools/call', { name: 'nope', _meta: modernMeta() }, 1));
    await mcp.dispatch(req('tools/call', { name: 'fails', _meta: modernMeta() }, 2));
    await mcp.dispatch(req('no/such/method', { _meta: modernMeta() }, 3));
    const [unknownTool, failing, unknownMethod] = otel.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(unknownTool!.name).toBe('tools/call'); // an unregistered name is the client's: never a span name (issue 24)
    expect(unknownTool!.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(unknownTool!.status).toEqual({ code: SpanStatusCode.ERROR, message: "Unknown tool: 'nope'" });
    expect(failing!.attributes['error.type']).toBe('tool_error');
    expect(failing!.attributes['rpc.response.status_code']).toBeUndefined();
    expect(failing!.status.code).toBe(SpanStatusCode.ERROR);
    expect(unknownMethod!.name).toBe('_OTHER');
    expect(unknownMethod!.attributes).toMatchObject({ 'mcp.method.name': '_OTHER', 'error.type': '-32601' });
  });

  it('a request the client cancelled: error.type cancelled, the handler span ended with it', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    mcp.tool('forever', {}, () => new Promise<string>(() => {}));
    const pending = mcp.dispatch(req('tools/call', { name: 'forever', _meta: modernMeta() }, 5));
    await sleep(1);
    await mcp.dispatch({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, _meta: modernMeta() } });
    expect((await pending).reply).toBeUndefined();
    const span = otel.spans().find((s) => s.name === 'tools/call forever')!;
    expect(span.attributes['error.type']).toBe('cancelled');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(otel.spans().find((s) => s.name === 'handler tools/call forever')?.attributes['error.type']).toBe('cancelled');
  });

  it('one span per request under concurrency, each under its own parent, each handler under its own server span', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    const parents = Array.from({ length: 20 }, () => traceparent());
    await Promise.all(parents.map((tp, i) => mcp.dispatch(req('tools/call', { name: 'slow', arguments: {}, _meta: modernMeta({ traceparent: tp.header }) }, i))));
    const servers = otel.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(servers).toHaveLength(20);
    for (const [i, tp] of parents.entries()) {
      const span = servers.find((s) => s.attributes['jsonrpc.request.id'] === String(i))!;
      expect(parentOf(span)).toBe(tp.spanId);
      const handler = otel.spans().find((s) => parentOf(s) === span.spanContext().spanId)!;
      expect(handler.name).toBe('handler tools/call slow');
      const user = otel.spans().filter((s) => parentOf(s) === handler.spanContext().spanId).map((s) => s.name).sort();
      expect(user).toEqual(['explicit', 'user work']);
    }
  });
});

describe('child spans for what the server asks the client', () => {
  it('2025: a CLIENT span per server->client request, its traceparent in the request _meta', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    const connection = await initialized(mcp);
    const sent: any[] = [];
    const tp = traceparent();
    const pending = mcp.dispatch(req('tools/call', { name: 'ask', _meta: { traceparent: tp.header } }), { connection, send: (m) => sent.push(m) });
    await sleep(5);
    expect(sent[0].method).toBe('elicitation/create');
    await mcp.dispatch({ jsonrpc: '2.0', id: sent[0].id, result: { action: 'accept', content: { n: 'Bo' } } }, { connection });
    await pending;
    const elicit = otel.spans().find((s) => s.name === 'elicitation/create')!;
    const handler = otel.spans().find((s) => s.name === 'handler tools/call ask')!;
    expect(elicit.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(elicit)).toBe(handler.spanContext().spanId);
    expect(elicit.spanContext().traceId).toBe(tp.traceId);
    expect(sent[0].params._meta).toEqual({ traceparent: `00-${tp.traceId}-${elicit.spanContext().spanId}-01` });
    // What the handler asked for is unchanged apart from _meta.
    expect(sent[0].params.message).toBe('Name?');
  });

  it('2026 MRTR: each round is a SERVER span in the client trace; each input request a CLIENT span with its traceparent', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    const tp = traceparent();
    const round1 = await mcp.dispatch(req('tools/call', { name: 'ask', _meta: modernMeta({ traceparent: tp.header }, { elicitation: {} }) }));
    const result = (round1.reply as any).result;
    expect(result.resultType).toBe('input_required');
    const [key] = Object.keys(result.inputRequests);
    const round2 = await mcp.dispatch(req('tools/call', {
      name: 'ask', requestState: result.requestState, inputResponses: { [key!]: { action: 'accept', content: { n: 'Cy' } } },
      _meta: modernMeta({ traceparent: tp.header }, { elicitation: {} }),
    }, 2));
    expect((round2.reply as any).result.content[0].text).toContain('Cy');
    const rounds = otel.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(rounds.map((s) => [parentOf(s), s.attributes['minimcp.result_type']])).toEqual([[tp.spanId, 'input_required'], [tp.spanId, undefined]]);
    const asked = otel.spans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(asked).toHaveLength(1); // the second round had its answer: nothing asked
    expect(asked[0]!.name).toBe('elicitation/create');
    expect(result.inputRequests[key!].params._meta).toEqual({ traceparent: `00-${tp.traceId}-${asked[0]!.spanContext().spanId}-01` });
  });
});

describe('metrics', () => {
  it('mcp.server.operation.duration by method and outcome; active requests back to zero', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    let release!: () => void;
    mcp.tool('hold', {}, () => new Promise<string>((resolve) => (release = () => resolve('done'))));
    const held = mcp.dispatch(req('tools/call', { name: 'hold', _meta: modernMeta() }, 9));
    await sleep(1);
    const active = async () => (await otel.points('minimcp.server.active_requests')).map((p) => [p.attributes['mcp.method.name'], p.value]);
    expect(await active()).toEqual([['tools/call', 1]]);
    release();
    await held;
    await mcp.dispatch(req('tools/call', { name: 'add', arguments: { a: 1, b: 2 }, _meta: modernMeta() }, 1));
    await mcp.dispatch(req('tools/call', { name: 'add', arguments: { a: 1, b: 2 }, _meta: modernMeta() }, 2));
    await mcp.dispatch(req('tools/call', { name: 'nope', _meta: modernMeta() }, 3));
    await mcp.dispatch(req('tools/list', { _meta: modernMeta() }, 4));
    expect(await active()).toEqual([['tools/call', 0], ['tools/list', 0]]);
    const durations = (await otel.points('mcp.server.operation.duration')).map((p) => ({ ...p.attributes, count: (p.value as any).count }));
    expect(durations).toEqual(expect.arrayContaining([
      { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'add', 'gen_ai.operation.name': 'execute_tool', 'mcp.protocol.version': V, count: 2 },
      // A refused tool name is whatever the client sent: the metric keeps only the error.
      { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'mcp.protocol.version': V, 'error.type': '-32602', 'rpc.response.status_code': '-32602', count: 1 },
      { 'mcp.method.name': 'tools/list', 'mcp.protocol.version': V, count: 1 },
    ]));
    expect(durations).toHaveLength(4); // hold, add, nope, tools/list
  });
});

describe('over the stdio transport', () => {
  it('parents each request on its _meta.traceparent, in both eras, without network attributes', async () => {
    const otel = otelHarness();
    const mcp = server(otel);
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: any[] = [];
    output.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))));
    serveStdio(mcp, { input, output, exitOnEnd: false, guardStdout: false });
    const legacy = traceparent();
    const modern = traceparent();
    input.write(`${JSON.stringify(req('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, 0))}\n`);
    input.write(`${JSON.stringify(req('tools/call', { name: 'add', arguments: { a: 1, b: 1 }, _meta: { traceparent: legacy.header } }, 1))}\n`);
    input.write(`${JSON.stringify(req('tools/call', { name: 'add', arguments: { a: 2, b: 2 }, _meta: modernMeta({ traceparent: modern.header }) }, 2))}\n`);
    while (lines.length < 3) await sleep(2);
    const calls = otel.spans().filter((s) => s.name === 'tools/call add');
    expect(calls.map((s) => [parentOf(s), s.attributes['mcp.protocol.version']])).toEqual([[legacy.spanId, '2025-11-25'], [modern.spanId, V]]);
    expect(calls.every((s) => s.attributes['network.transport'] === undefined)).toBe(true);
    input.end();
  });
});

describe('a failing backend', () => {
  it('costs no answer: the request goes on untraced and the failure reaches the server log', async () => {
    const logged: unknown[] = [];
    const broken = {
      startSpan: () => {
        throw new Error('collector down');
      },
      recordDuration: () => {},
      addActive: () => {},
    };
    const mcp = new MiniMCP({ name: 'broken', version: '1.0.0', telemetry: broken, onError: (error) => void logged.push(error) });
    mcp.tool('add', {}, (args: Record<string, unknown>) => String(Number(args.a) + Number(args.b)));
    const reply = (await mcp.handle(req('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }))) as any;
    expect(reply.result.content).toEqual([{ type: 'text', text: '3' }]);
    expect(logged.map((e) => (e as Error).message)).toEqual(['collector down']);
  });
});
