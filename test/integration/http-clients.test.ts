/**
 * The official clients over real HTTP on 127.0.0.1: SDK v1 (2025-11-25 wire, sessions, server->client
 * requests answered by separate POSTs) and @modelcontextprotocol/client v2 (2026-07-28, stateless, MRTR).
 */
import { Client as ClientV2, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';

function createServer(): MiniMCP {
  const mcp = new MiniMCP({ name: 'http-it', version: '1.0.0', onError: () => {} });
  mcp.tool('add', { description: 'Add', input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));
  mcp.tool('count', { description: 'Counts with progress' }, async (_a, ctx) => {
    for (let i = 1; i <= 3; i++) {
      ctx.progress(i, 3);
      await new Promise((r) => setTimeout(r, 5));
    }
    return 'counted';
  });
  mcp.tool('chatty', { description: 'Logs' }, (_a, ctx) => {
    ctx.log('info', 'first', 'it');
    ctx.log('warning', { detail: 'second' }, 'it');
    return 'logged';
  });
  mcp.tool('ask', { description: 'Elicits a name' }, async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    return `hello ${String(r.content?.name)}`;
  });
  mcp.tool('sample', { description: 'Samples' }, async (_a, ctx) => {
    const r = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: '6 x 7?' } }], maxTokens: 10 });
    return `model said ${(r.content as { text: string }).text} via ${r.model}`;
  });
  mcp.tool('roots', { description: 'Lists roots' }, async (_a, ctx) => (await ctx.listRoots()).roots.map((r) => r.uri).join(','));
  mcp.resource('test://hello', { mimeType: 'text/plain' }, () => 'hello world');
  return mcp;
}

/** Records the Content-Type the server answered each POST with, by JSON-RPC method. */
function recordingFetch() {
  const seen: { method: string; status: number; contentType: string | null }[] = [];
  const fetchImpl = async (url: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(url, init);
    if (init?.method === 'POST' && typeof init.body === 'string') {
      const body = JSON.parse(init.body);
      seen.push({ method: body.method ?? 'response', status: response.status, contentType: response.headers.get('content-type') });
    }
    return response;
  };
  return { seen, fetchImpl };
}

let server: RunningServer;
beforeAll(async () => {
  server = await serve(createServer(), { port: 0 });
});
afterAll(async () => {
  await server.close();
});

describe('SDK v1 client (2025-11-25)', () => {
  let client: ClientV1;
  const { seen, fetchImpl } = recordingFetch();
  const logs: unknown[] = [];

  beforeAll(async () => {
    client = new ClientV1({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: '42' }, model: 'm-1' }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] }));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.connect(new TransportV1(new URL(server.url), { fetch: fetchImpl }));
  });
  afterAll(async () => {
    await client.close();
  });

  it('initializes with a session id and lists tools', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'http-it' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add', 'count', 'chatty', 'ask', 'sample', 'roots']);
    expect(seen.find((s) => s.method === 'notifications/initialized')?.status).toBe(202);
  });

  it('calls a tool (application/json)', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
    expect(seen.at(-1)).toEqual({ method: 'tools/call', status: 200, contentType: 'application/json' });
  });

  it('receives progress over SSE', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'count', arguments: {} }, undefined, { onprogress: (p) => void progress.push(p.progress) });
    expect(result.content).toEqual([{ type: 'text', text: 'counted' }]);
    expect(progress).toEqual([1, 2, 3]);
    expect(seen.at(-1)).toEqual({ method: 'tools/call', status: 200, contentType: 'text/event-stream' });
  });

  it('receives log notifications', async () => {
    logs.length = 0;
    await client.callTool({ name: 'chatty', arguments: {} });
    expect(logs).toEqual([
      { level: 'info', logger: 'it', data: 'first' },
      { level: 'warning', logger: 'it', data: { detail: 'second' } },
    ]);
  });

  it('answers elicitation, sampling and roots through separate POSTs (202)', async () => {
    expect((await client.callTool({ name: 'ask', arguments: {} })).content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect((await client.callTool({ name: 'sample', arguments: {} })).content).toEqual([{ type: 'text', text: 'model said 42 via m-1' }]);
    expect((await client.callTool({ name: 'roots', arguments: {} })).content).toEqual([{ type: 'text', text: 'file:///a,file:///b' }]);
    expect(seen.filter((s) => s.method === 'response').map((s) => s.status)).toEqual([202, 202, 202]);
  });

  it('gets -32602 for an unknown tool', async () => {
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('gets -32602 with data.uri for a missing resource', async () => {
    expect((await client.readResource({ uri: 'test://hello' })).contents[0]).toMatchObject({ text: 'hello world' });
    await expect(client.readResource({ uri: 'test://missing' })).rejects.toMatchObject({ code: -32602, data: { uri: 'test://missing' } });
  });
});

describe('client v2 (2026-07-28)', () => {
  let client: ClientV2;
  const { seen, fetchImpl } = recordingFetch();

  beforeAll(async () => {
    client = new ClientV2({ name: 'v2', version: '2.0.0' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'auto' } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }));
    await client.connect(new TransportV2(new URL(server.url), { fetch: fetchImpl }));
  });
  afterAll(async () => {
    await client.close();
  });

  it('negotiates 2026-07-28 through server/discover, with no session', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(seen[0]).toMatchObject({ method: 'server/discover', status: 200 });
    expect(seen.some((s) => s.method === 'initialize')).toBe(false);
  });

  it('lists and calls tools', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('add');
    expect((await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).content).toEqual([{ type: 'text', text: '42' }]);
  });

  it('receives progress over SSE', async () => {
    const progress: number[] = [];
    await client.callTool({ name: 'count', arguments: {} }, { onprogress: (p) => void progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
    expect(seen.at(-1)).toMatchObject({ method: 'tools/call', contentType: 'text/event-stream' });
  });

  it('receives logs when the request asks for a level', async () => {
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params.data));
    await client.callTool({ name: 'chatty', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'warning' } });
    expect(logs).toEqual([{ detail: 'second' }]);
  });

  it('completes elicitation through input_required and a retry (MRTR), both plain JSON', async () => {
    const before = seen.length;
    expect((await client.callTool({ name: 'ask', arguments: {} })).content).toEqual([{ type: 'text', text: 'hello Grace' }]);
    expect(seen.slice(before).map((s) => [s.method, s.contentType])).toEqual([
      ['tools/call', 'application/json'],
      ['tools/call', 'application/json'],
    ]);
  });

  it('gets -32602 for an unknown tool and -32602 with data.uri for a missing resource', async () => {
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await expect(client.readResource({ uri: 'test://missing' })).rejects.toMatchObject({ code: -32602, data: { uri: 'test://missing' } });
  });
});
