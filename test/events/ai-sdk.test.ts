/**
 * The whole webhook path against a peer we did not write: the AI SDK client (`@ai-sdk/mcp`,
 * `experimental_events`) lists the example's event types, subscribes by webhook with its own handler
 * (`experimental_createMCPEventWebhook`) as the callback, and receives an emitted event, verified by
 * that handler (signature, `webhook-id` = eventId, the callback URL kept with its query string). Then
 * it refreshes and unsubscribes; a caller without a principal is refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  experimental_createMCPClient as createMCPClient, experimental_createMCPEventWebhook as createMCPEventWebhook,
  type Experimental_MCPEventStore as EventStore, type Experimental_MCPEventSubscription as Subscription,
} from '@ai-sdk/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerScope, createIncidentServer } from '../../examples/events/server.js';
import { eventWebhooks } from '../../src/events/index.js';
import type { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { until } from '../support/until.js';

function memoryStore(): EventStore & { all: Map<string, Subscription> } {
  const all = new Map<string, Subscription>();
  return {
    all,
    get: async (key) => all.get(key),
    getById: async (id) => [...all.values()].find((s) => s.id === id),
    set: async (s) => void all.set(s.key, s),
    update: async (key, patch) => void all.set(key, { ...all.get(key)!, ...patch }),
    delete: async (key) => void all.delete(key),
  };
}

/** The AI SDK's webhook handler behind node:http, sharing the client's store. */
async function receiver(store: EventStore) {
  const events: { eventId: string; data: unknown }[] = [];
  const statuses: number[] = [];
  const handle = createMCPEventWebhook({ store, onEvent: async ({ event }) => void events.push(event as never) });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const response = await handle(new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers, body: Buffer.concat(chunks) }));
    statuses.push(response.status);
    res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'text/plain' });
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/mcp`, events, statuses, close: () => new Promise((r) => server.close(r)) };
}

let mcp: MiniMCP<any>;
let running: RunningServer;
let webhooks: ReturnType<typeof eventWebhooks>;
beforeAll(async () => {
  webhooks = eventWebhooks({ egress: { allowLoopback: true }, retry: { firstDelayMs: 200 }, log: () => {} });
  mcp = createIncidentServer({ onError: () => {} }, { webhooks });
  running = await serve(mcp, { port: 0, host: '127.0.0.1', scope: bearerScope });
});
afterAll(async () => {
  await webhooks.engine.close();
  await running.close();
});

const client = (store: EventStore, token?: string) =>
  createMCPClient({ transport: { type: 'http', url: running.url, ...(token && { headers: { authorization: `Bearer ${token}` } }) }, experimental_events: { store } });

describe('the AI SDK client and its webhook handler', () => {
  it('subscribes, receives an emitted event verified by its handler, refreshes and unsubscribes', async () => {
    const store = memoryStore();
    const peer = await receiver(store);
    const ai = await client(store, 'alice');
    try {
      const list = await ai.experimental_events.list();
      expect(list.events.map((e) => [e.name, e.delivery])).toEqual([['incident.created', ['poll', 'push', 'webhook']]]);
      const subscribed = await ai.experimental_events.subscribe({
        name: 'incident.created', arguments: { service: 'db' }, delivery: { mode: 'webhook', url: peer.url, allowInsecureLocalhost: true },
      });
      expect(subscribed).toMatchObject({ id: expect.stringMatching(/^sub_/), truncated: false, refreshBefore: expect.any(String) });
      const kept = [...store.all.values()][0]!;
      expect(kept.delivery.url).toContain('?mcp_event_subscription=');
      const raised = await mcp.tools.call('raise_incident', { service: 'db', severity: 'high' });
      await mcp.tools.call('raise_incident', { service: 'web', severity: 'low' }); // not this subscription's
      const eventId = (raised.structuredContent as { eventId: string }).eventId;
      await until(() => peer.events, (events) => events.length === 1);
      expect(peer.events[0]).toMatchObject({ eventId, data: { service: 'db', severity: 'high' } });
      const refreshed = await ai.experimental_events.refresh({ id: subscribed.id });
      expect(refreshed.id).toBe(subscribed.id);
      await ai.experimental_events.unsubscribe({ id: subscribed.id });
      await mcp.tools.call('raise_incident', { service: 'db', severity: 'low' });
      await new Promise((r) => setTimeout(r, 300));
      expect(peer.events).toHaveLength(1);
      expect(peer.statuses.every((s) => s >= 200 && s < 300)).toBe(true);
    } finally {
      await ai.close();
      await peer.close();
    }
  }, 30_000);

  it('a client without a principal is refused (Forbidden)', async () => {
    const store = memoryStore();
    const peer = await receiver(store);
    const ai = await client(store);
    try {
      await expect(ai.experimental_events.subscribe({ name: 'incident.created', delivery: { mode: 'webhook', url: peer.url, allowInsecureLocalhost: true } }))
        .rejects.toMatchObject({ code: -32024 });
      expect(peer.statuses).toEqual([]);
    } finally {
      await ai.close();
      await peer.close();
    }
  });
});
