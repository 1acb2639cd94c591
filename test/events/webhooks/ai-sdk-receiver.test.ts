/**
 * Issue 34 item 5 against a peer we did not write: the AI SDK's own webhook handler
 * (`@ai-sdk/mcp` `experimental_createMCPEventWebhook`) as the callback endpoint. It needs the signed
 * verification POST with `X-MCP-Subscription-Id`, `webhook-id` equal to the occurrence's `eventId`,
 * the callback URL kept exactly (its subscription key rides in the query string), and fresh
 * Standard Webhooks signatures. It answers the challenge, accepts events, gaps and terminations, and
 * answers 410 once its subscription expired (a final answer for the engine: no retry).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { experimental_createMCPEventWebhook as createMCPEventWebhook, type Experimental_MCPEventSubscription as Subscription } from '@ai-sdk/mcp';
import { controlEnvelope, createWebhookEngine, type DeliveryGiveUp, type WebhookEngine, type WebhookTarget } from '../../../src/events/webhooks/index.js';
import { manualClock, secret, until } from './support.js';

let server: http.Server | undefined;
let engine: WebhookEngine | undefined;
afterEach(async () => {
  await engine?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

/** The AI SDK's handler behind node:http, with its subscription store in a Map. */
async function aiSdkReceiver(subscription: Subscription) {
  const subscriptions = new Map([[subscription.key, subscription]]);
  const seen = { events: [] as unknown[], gaps: [] as unknown[], terminated: [] as unknown[], statuses: [] as number[] };
  const handle = createMCPEventWebhook({
    store: {
      get: async (key) => subscriptions.get(key),
      getById: async (id) => [...subscriptions.values()].find((s) => s.id === id),
      set: async (s) => void subscriptions.set(s.key, s),
      update: async (key, patch) => void subscriptions.set(key, { ...subscriptions.get(key)!, ...patch }),
      delete: async (key) => void subscriptions.delete(key),
    },
    onEvent: async ({ event }) => void seen.events.push(event),
    onGap: async ({ gap }) => void seen.gaps.push(gap),
    onTerminated: async ({ termination }) => void seen.terminated.push(termination),
  });
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const response = await handle(new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers, body: Buffer.concat(chunks) }));
    seen.statuses.push(response.status);
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => (answerHeaders[name] = value));
    res.writeHead(response.status, answerHeaders);
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server!.address() as AddressInfo).port, subscriptions, seen };
}

function subscription(secretValue: string, status: 'pending' | 'active' = 'pending'): Subscription {
  return {
    key: 'k/1',
    id: 'sub_ai',
    name: 'incident.created',
    arguments: { service: 'db' },
    definition: { name: 'incident.created', description: 'x', delivery: ['webhook'], inputSchema: { type: 'object' }, payloadSchema: { type: 'object' } } as never,
    delivery: { mode: 'webhook', url: '', secret: secretValue },
    cursor: null,
    truncated: false,
    status,
  };
}

const occurrence = (eventId: string) => ({
  webhookId: eventId,
  body: { eventId, name: 'incident.created', timestamp: new Date().toISOString(), data: { id: eventId, service: 'db', severity: 'high' }, cursor: `c_${eventId}` },
});

it('the AI SDK handler answers our challenge, then accepts signed events, a gap and a termination', async () => {
  const key = secret();
  const peer = await aiSdkReceiver(subscription(key));
  engine = createWebhookEngine({ egress: { allowLoopback: true }, log: () => {} });
  const target: WebhookTarget = { subscriptionId: 'sub_ai', principal: 'alice', url: `http://127.0.0.1:${peer.port}/hooks?mcp_event_subscription=k%2F1&v=2`, secrets: [key] };
  await engine.verify(target); // while its subscription is still pending, as during events/subscribe
  peer.subscriptions.get('k/1')!.status = 'active';
  await engine.enqueue(target, occurrence('evt_1'));
  await engine.enqueue(target, occurrence('evt_2'));
  await until(() => peer.seen.events.length === 2);
  expect(peer.seen.events).toEqual(expect.arrayContaining([expect.objectContaining({ eventId: 'evt_1', cursor: 'c_evt_1' }), expect.objectContaining({ eventId: 'evt_2' })]));
  expect(peer.subscriptions.get('k/1')!.cursor).toMatch(/^c_evt_/);
  await engine.enqueue(target, controlEnvelope('gap', { cursor: 'fresh' }));
  await until(() => peer.seen.gaps.length === 1);
  expect(peer.subscriptions.get('k/1')).toMatchObject({ cursor: 'fresh', truncated: true });
  await engine.enqueue(target, controlEnvelope('terminated', { error: { code: -32012, message: 'Forbidden' } }));
  await until(() => peer.seen.terminated.length === 1);
  expect(peer.subscriptions.has('k/1')).toBe(false);
  expect(peer.seen.statuses).toEqual([200, 204, 204, 204, 204]);
});

it('rotation: the AI SDK handler holding either secret accepts the delivery', async () => {
  const [newer, older] = [secret(), secret()];
  for (const held of [newer, older]) {
    const peer = await aiSdkReceiver(subscription(held, 'active'));
    engine = createWebhookEngine({ egress: { allowLoopback: true }, log: () => {} });
    const target: WebhookTarget = { subscriptionId: 'sub_ai', principal: 'alice', url: `http://127.0.0.1:${peer.port}/h?mcp_event_subscription=k%2F1`, secrets: [newer, older] };
    await engine.verify(target);
    await engine.enqueue(target, occurrence('evt_rot'));
    await until(() => peer.seen.events.length === 1);
    await engine.close();
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
  }
  engine = undefined;
  server = undefined;
});

it('an expired subscription at the AI SDK answers 410: given up at once, not retried', async () => {
  const key = secret();
  const expired = { ...subscription(key, 'active'), refreshBefore: new Date(Date.now() - 1_000).toISOString() };
  const peer = await aiSdkReceiver(expired);
  const clock = manualClock();
  const given: DeliveryGiveUp[] = [];
  engine = createWebhookEngine({ egress: { allowLoopback: true }, clock, retry: { firstDelayMs: 1_000 }, onGiveUp: (g) => given.push(g), log: () => {} });
  const target: WebhookTarget = { subscriptionId: 'sub_ai', principal: 'alice', url: `http://127.0.0.1:${peer.port}/h?mcp_event_subscription=k%2F1`, secrets: [key] };
  await engine.verify(target);
  await engine.enqueue(target, occurrence('evt_late'));
  await until(() => given.length === 1);
  clock.advance(3_600_000);
  await new Promise((resolve) => setTimeout(resolve, 30));
  expect(given[0]!.reason).toBe('gone');
  expect(peer.seen.statuses).toEqual([200, 410]);
});
