/**
 * Poll and push over real HTTP on 127.0.0.1 with the official clients' raw requests: SDK v1
 * (2025-11-25, after initialize) and @modelcontextprotocol/client v2 (2026-07-28, stateless). A push
 * stream carries only its own notifications/events/*, and cancelling it gives its place back.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { bearerScope, createIncidentServer } from '../../examples/events/server.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { until } from '../support/until.js';

const anyResult = z.object({}).passthrough();
type Note = { method: string; params?: Record<string, any> };

let server: RunningServer;
beforeAll(async () => {
  const mcp = createIncidentServer({ onError: () => {}, maxStreams: 2 }, { heartbeatMs: 200 });
  server = await serve(mcp, { port: 0, host: '127.0.0.1', scope: bearerScope });
});
afterAll(async () => {
  await server.close();
});

interface RawClient {
  request(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<any>;
  notes: Note[];
  close(): Promise<void>;
}

async function v1(): Promise<RawClient> {
  const client = new ClientV1({ name: 'v1', version: '1.0.0' });
  const notes: Note[] = [];
  client.fallbackNotificationHandler = async (n) => void notes.push(n as Note);
  await client.connect(new TransportV1(new URL(server.url)));
  // SDK v1 keeps the capabilities its schema knows: the extensions map, not the sketch's top-level `events`.
  expect(client.getServerCapabilities()?.extensions).toEqual({ 'io.modelcontextprotocol/events': { listChanged: true } });
  return { notes, close: () => client.close(), request: (method, params, signal) => client.request({ method, params } as never, anyResult, { signal }) };
}

async function v2(): Promise<RawClient> {
  const client = new ClientV2({ name: 'v2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const notes: Note[] = [];
  client.fallbackNotificationHandler = async (n) => void notes.push(n as Note);
  await client.connect(new TransportV2(new URL(server.url)));
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return { notes, close: () => client.close(), request: (method, params, signal) => client.request({ method, params } as never, anyResult as never, { signal }) as Promise<any> };
}

const raise = (client: RawClient, service: string) => client.request('tools/call', { name: 'raise_incident', arguments: { service, severity: 'high' } });

describe.each([['SDK v1, 2025-11-25', v1], ['client v2, 2026-07-28', v2]])('%s', (_label, connect) => {
  let client: RawClient;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client.close();
  });

  it('lists the event type and polls it from a cursor', async () => {
    const list = await client.request('events/list', {});
    expect(list.events.map((e: any) => e.name)).toEqual(['incident.created']);
    const first = await client.request('events/poll', { name: 'incident.created', arguments: { service: 'db' }, cursor: null });
    expect(first.events).toEqual([]);
    const raised = await raise(client, 'db');
    await raise(client, 'web');
    const next = await client.request('events/poll', { name: 'incident.created', arguments: { service: 'db' }, cursor: first.cursor });
    expect(next.events).toEqual([expect.objectContaining({ eventId: raised.structuredContent.eventId, data: expect.objectContaining({ service: 'db' }) })]);
    expect(next).toMatchObject({ truncated: false, hasMore: false, nextPollMs: 5000 });
  });

  it('streams: active, then the event, heartbeats with a cursor; cancelling frees the stream place', async () => {
    for (let round = 0; round < 3; round++) {
      // maxStreams is 2 (SDK v1 holds one for its GET stream): a round opens only if those before released theirs.
      client.notes.length = 0;
      const abort = new AbortController();
      const stream = client.request('events/stream', { name: 'incident.created', arguments: { service: 'db' } }, abort.signal).catch((e) => e);
      await until(() => client.notes, (n) => n.some((x) => x.method === 'notifications/events/active'));
      const raised = await raise(client, 'db');
      await until(() => client.notes, (n) => n.some((x) => x.method === 'notifications/events/event') && n.some((x) => x.method === 'notifications/events/heartbeat'));
      const event = client.notes.find((n) => n.method === 'notifications/events/event')!;
      expect(event.params).toMatchObject({ eventId: raised.structuredContent.eventId, name: 'incident.created', cursor: expect.stringMatching(/^ev1\./) });
      expect(client.notes.every((n) => n.method.startsWith('notifications/events/'))).toBe(true);
      expect(client.notes[0]!.method).toBe('notifications/events/active');
      const heartbeat = client.notes.find((n) => n.method === 'notifications/events/heartbeat')!;
      expect(heartbeat.params!.cursor).toMatch(/^ev1\./);
      abort.abort();
      expect(await stream).toBeInstanceOf(Error);
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('refuses a bad subscription with a plain error before any stream opens', async () => {
    await expect(client.request('events/stream', { name: 'incident.created', arguments: { service: 3 } })).rejects.toMatchObject({ code: -32602 });
    await expect(client.request('events/stream', { name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32023 });
  });
});
