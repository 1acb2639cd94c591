/**
 * Telemetry over real HTTP on 127.0.0.1 with the official clients and the real OpenTelemetry SDK:
 * SDK v1 (2025-11-25, sessions) and client v2 (2026-07-28). The parent comes from `_meta.traceparent`
 * when the client sends one and from the HTTP `traceparent` header otherwise; a 2025 elicitation
 * carries the server's trace context to the client in its `_meta`.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { otelHarness, parentOf, traceparent } from '../support/otel.js';

const otel = otelHarness();
let server: RunningServer;
/** The trace context every HTTP request of the clients carries in its headers. */
const header = traceparent();
const withHeader = (url: string | URL | Request, init?: RequestInit) => {
  const headers = new Headers(init?.headers);
  headers.set('traceparent', header.header);
  return fetch(url, { ...init, headers });
};

beforeAll(async () => {
  const mcp = new MiniMCP({ name: 'otel-http', version: '1.0.0', onError: () => {}, telemetry: otel.telemetry });
  mcp.tool('add', {}, (args: Record<string, unknown>) => String(Number(args.a) + Number(args.b)));
  mcp.tool('ask', {}, async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `hello ${String(r.content?.name)}`;
  });
  server = await serve(mcp, { port: 0 });
});
afterAll(async () => {
  await server.close();
});

const serverSpans = (method: string) => otel.spans().filter((s) => s.kind === SpanKind.SERVER && s.attributes['mcp.method.name'] === method);

describe('SDK v1 client (2025-11-25, with a session)', () => {
  let client: ClientV1;
  const elicitMeta: unknown[] = [];

  beforeAll(async () => {
    client = new ClientV1({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitMeta.push(request.params._meta);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    await client.connect(new TransportV1(new URL(server.url), { fetch: withHeader }));
  });
  afterAll(async () => {
    await client.close();
  });

  it('parents the span on _meta.traceparent, else on the HTTP header; the session is a digest, the same for the session', async () => {
    const inMeta = traceparent();
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 }, _meta: { traceparent: inMeta.header } });
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
    await client.listTools();
    const [initialize] = serverSpans('initialize');
    const [call] = serverSpans('tools/call');
    const [list] = serverSpans('tools/list');
    expect(call!.name).toBe('tools/call add');
    expect(parentOf(call!)).toBe(inMeta.spanId);
    expect(call!.spanContext().traceId).toBe(inMeta.traceId);
    expect(parentOf(list!)).toBe(header.spanId);
    expect(parentOf(initialize!)).toBe(header.spanId);
    expect(call!.attributes).toMatchObject({
      'mcp.protocol.version': '2025-11-25', 'gen_ai.tool.name': 'add', 'network.transport': 'tcp', 'network.protocol.name': 'http',
    });
    const session = call!.attributes['mcp.session.id'];
    expect(session).toMatch(/^[\w-]{22}$/);
    expect(session).not.toBe(client.transport?.sessionId);
    expect([initialize, list].map((s) => s!.attributes['mcp.session.id'])).toEqual([session, session]);
  });

  it('an elicitation on the stream is a CLIENT span whose context reaches the client in _meta', async () => {
    const result = await client.callTool({ name: 'ask', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    const elicit = otel.spans().find((s) => s.kind === SpanKind.CLIENT && s.name === 'elicitation/create')!;
    expect(elicit.spanContext().traceId).toBe(header.traceId);
    expect(elicitMeta).toEqual([{ traceparent: `00-${header.traceId}-${elicit.spanContext().spanId}-01` }]);
  });
});

describe('client v2 (2026-07-28)', () => {
  let client: ClientV2;

  beforeAll(async () => {
    client = new ClientV2({ name: 'v2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(new URL(server.url), { fetch: withHeader }));
  });
  afterAll(async () => {
    await client.close();
  });

  it('parents the span on _meta.traceparent next to the 2026 keys, else on the header', async () => {
    const before = serverSpans('tools/call').length;
    const inMeta = traceparent();
    const result = await client.callTool({ name: 'add', arguments: { a: 4, b: 5 }, _meta: { traceparent: inMeta.header } });
    expect(result.content).toEqual([{ type: 'text', text: '9' }]);
    await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    const [withMeta, withoutMeta] = serverSpans('tools/call').slice(before);
    expect(withMeta!.attributes['mcp.protocol.version']).toBe('2026-07-28');
    expect(parentOf(withMeta!)).toBe(inMeta.spanId);
    expect(parentOf(withoutMeta!)).toBe(header.spanId);
    expect(withMeta!.attributes['mcp.session.id']).toBeUndefined();
  });
});
