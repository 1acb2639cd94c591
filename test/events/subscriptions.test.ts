/**
 * Webhook subscription records (the events layer's part of events/subscribe): an authenticated
 * principal, the key and its derived id, idempotent refresh with secret rotation and its grace, TTL
 * grants, bounds per principal and in all, unsubscribe by key, and the fan-out of an emit to the
 * matching subscriptions with `webhook-id` = eventId and the callback kept exactly. The engine here
 * records what it is asked (the real one is tested in src/events/webhooks and in ai-sdk.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiniMCP } from '../../src/index.js';
import type { WebhookSettings, WebhookTarget } from '../../src/events/webhook-settings.js';

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const SECRET2 = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
const URL1 = 'https://hooks.example.com/in?mcp_event_subscription=k1';

function recordingEngine(fail?: { name: string; reason?: string }, full?: Set<string>) {
  const calls = { verify: [] as WebhookTarget[], enqueue: [] as { target: WebhookTarget; webhookId: string; body: any }[], forget: [] as string[], reactivate: [] as string[] };
  const engine: WebhookSettings['engine'] = {
    async verify(target) {
      calls.verify.push(target);
      if (fail) throw Object.assign(new Error('refused'), fail);
    },
    async enqueue(target, delivery) {
      if (full?.has(String((delivery.body as any).data?.id))) return 'limit'; // a pending bound was full for this one
      calls.enqueue.push({ target, webhookId: delivery.webhookId, body: delivery.body });
      return 'queued';
    },
    async status() {
      return { active: true, lastDeliveryAt: null, lastError: null };
    },
    async reactivate(id) {
      calls.reactivate.push(id);
    },
    async forget(id) {
      calls.forget.push(id);
    },
    async close() {},
  };
  return { engine, calls };
}

function server(options: Partial<WebhookSettings> = {}, fail?: { name: string; reason?: string }, full?: Set<string>) {
  const { engine, calls } = recordingEngine(fail, full);
  const mcp = new MiniMCP<{ principal?: string }>({ name: 'w', version: '1', onError: () => {} });
  mcp.configureEvents({
    webhooks: {
      engine,
      validateUrl: (url) => {
        if (!url.startsWith('https://')) throw Object.assign(new Error('delivery.url must be https'), { name: 'WebhookParamsError' });
      },
      validateSecret: (secret) => {
        if (!/^whsec_[A-Za-z0-9+/=]{32,}$/.test(secret)) throw Object.assign(new Error('delivery.secret is malformed'), { name: 'WebhookParamsError' });
      },
      ...options,
    },
  });
  const incident = mcp.event('incident.created', {
    description: 'incidents',
    input: z.object({ service: z.string().optional() }),
    payload: z.object({ id: z.string(), service: z.string() }),
  });
  const call = async (method: string, params: Record<string, unknown>, principal?: string) =>
    (await mcp.handle({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }, { scope: principal === undefined ? {} : { principal } })) as any;
  const subscribe = (principal: string | undefined, extra: Record<string, unknown> = {}, url = URL1, secret = SECRET) =>
    call('events/subscribe', { name: 'incident.created', arguments: { service: 'db' }, delivery: { mode: 'webhook', url, secret }, cursor: null, ...extra }, principal);
  return { mcp, incident, calls, call, subscribe };
}

describe('events/subscribe: the records', () => {
  it('refuses without an authenticated principal, and refuses bad URLs and secrets with -32602', async () => {
    const { subscribe, calls } = server();
    expect((await subscribe(undefined)).error).toMatchObject({ code: -32024 });
    expect((await subscribe('ada', {}, 'http://hooks.example.com/x')).error.code).toBe(-32602);
    expect((await subscribe('ada', {}, URL1, 'whsec_short')).error.code).toBe(-32602);
    expect((await subscribe('ada', { delivery: { mode: 'webhook', url: URL1 } })).error.code).toBe(-32602);
    expect((await subscribe('ada', {}, `https://x.example/${'a'.repeat(3000)}`)).error.code).toBe(-32602);
    expect(calls.verify).toEqual([]);
  });

  it('derives the id from the key; subscribing again is an idempotent refresh; the id is no input', async () => {
    const { subscribe, calls } = server();
    const first = (await subscribe('ada')).result;
    expect(first).toMatchObject({ id: expect.stringMatching(/^sub_/), truncated: false, cursor: expect.stringMatching(/^ev1\./) });
    const again = (await subscribe('ada', { id: 'sub_forged' })).result;
    expect(again.id).toBe(first.id);
    expect(again.deliveryStatus).toEqual({ active: true, lastDeliveryAt: null, lastError: null });
    expect(calls.reactivate).toEqual([first.id]);
    // Each part of the key makes another subscription.
    expect((await subscribe('bob')).result.id).not.toBe(first.id);
    expect((await subscribe('ada', { arguments: { service: 'web' } })).result.id).not.toBe(first.id);
    expect((await subscribe('ada', {}, `${URL1}x`)).result.id).not.toBe(first.id);
    // The URL reaches the engine exactly as given, query string included.
    expect(calls.verify[0]).toMatchObject({ principal: 'ada', url: URL1, secrets: [SECRET] });
  });

  it('a refresh with a new secret signs with both during the grace, then the new one only', async () => {
    const { subscribe, incident, calls } = server({ secretGraceMs: 400 });
    await subscribe('ada');
    await subscribe('ada', {}, URL1, SECRET2);
    await incident.emit({ id: '1', service: 'db' });
    await new Promise((r) => setTimeout(r, 10));
    expect(calls.enqueue.at(-1)!.target.secrets).toEqual([SECRET2, SECRET]);
    await new Promise((r) => setTimeout(r, 450));
    await incident.emit({ id: '2', service: 'db' });
    await new Promise((r) => setTimeout(r, 10));
    expect(calls.enqueue.at(-1)!.target.secrets).toEqual([SECRET2]);
  });

  it('grants TTLs: default, clamped up and down; null gets the longest; refreshBefore is the grant', async () => {
    const { subscribe } = server({ defaultTtlMs: 600_000, minTtlMs: 60_000, maxTtlMs: 3_600_000 });
    const at = (r: any) => Date.parse(r.result.refreshBefore) - Date.now();
    expect(at(await subscribe('ada'))).toBeGreaterThan(590_000);
    expect(at(await subscribe('ada', { ttlMs: 1 }))).toBeGreaterThan(55_000);
    expect(at(await subscribe('ada', { ttlMs: 1 }))).toBeLessThan(61_000);
    expect(at(await subscribe('ada', { ttlMs: 99_999_999 }))).toBeLessThanOrEqual(3_600_000);
    expect(at(await subscribe('ada', { ttlMs: null }))).toBeGreaterThan(3_500_000);
  });

  it('bounds subscriptions per principal and in all, with ResourceExhausted naming the bound', async () => {
    const { subscribe } = server({ maxSubscriptionsPerPrincipal: 2, maxSubscriptions: 3 });
    await subscribe('ada', {}, 'https://a.example/1');
    await subscribe('ada', {}, 'https://a.example/2');
    expect((await subscribe('ada', {}, 'https://a.example/3')).error).toMatchObject({ code: -32025, data: { limit: 'subscriptions', max: 2 } });
    expect((await subscribe('ada', {}, 'https://a.example/1')).result).toBeDefined(); // a refresh is never refused
    await subscribe('bob', {}, 'https://b.example/1');
    expect((await subscribe('cyd', {}, 'https://c.example/1')).error).toMatchObject({ code: -32025, data: { max: 3 } });
  });

  it('unsubscribes by key; an unknown key is NotFound { kind: "subscription" }', async () => {
    const { subscribe, call, calls } = server();
    const { id } = (await subscribe('ada')).result;
    const key = { name: 'incident.created', arguments: { service: 'db' }, delivery: { url: URL1 } };
    expect((await call('events/unsubscribe', key, 'bob')).error).toMatchObject({ code: -32023, data: { kind: 'subscription' } });
    expect((await call('events/unsubscribe', key, 'ada')).result).toEqual({ resultType: 'complete' });
    expect(calls.forget).toEqual([id]);
    expect((await call('events/unsubscribe', key, 'ada')).error.data).toEqual({ kind: 'subscription' });
    expect((await call('events/unsubscribe', key)).error.code).toBe(-32024);
  });

  it('a failed verification is CallbackEndpointError with the reason, and nothing is kept', async () => {
    const { subscribe, incident, calls } = server({}, { name: 'CallbackEndpointError', reason: 'challenge_failed' });
    expect((await subscribe('ada')).error).toMatchObject({ code: -32027, data: { reason: 'challenge_failed' } });
    await incident.emit({ id: '1', service: 'db' });
    expect(calls.enqueue).toEqual([]);
  });

  it('an emit reaches each matching subscription once, webhook-id = eventId, with its cursor', async () => {
    const { subscribe, incident, calls } = server();
    await subscribe('ada');
    await subscribe('bob', { arguments: { service: 'web' } });
    const { eventId } = await incident.emit({ id: '1', service: 'db' }, { eventId: 'evt_upstream' });
    await new Promise((r) => setTimeout(r, 10));
    expect(calls.enqueue).toHaveLength(1);
    expect(calls.enqueue[0]).toMatchObject({ webhookId: eventId, target: { principal: 'ada', url: URL1 } });
    expect(calls.enqueue[0]!.body).toMatchObject({ eventId: 'evt_upstream', name: 'incident.created', data: { id: '1', service: 'db' }, cursor: expect.stringMatching(/^ev1\./) });
  });

  it('an occurrence the engine could not take is followed by a gap envelope, then delivery goes on', async () => {
    const { subscribe, incident, calls } = server({}, undefined, new Set(['dropped']));
    await subscribe('ada');
    await incident.emit({ id: 'dropped', service: 'db' });
    await new Promise((r) => setTimeout(r, 10));
    expect(calls.enqueue).toEqual([]);
    await incident.emit({ id: 'next', service: 'db' });
    await new Promise((r) => setTimeout(r, 10));
    expect(calls.enqueue.map((c) => c.body.type ?? c.body.data.id)).toEqual(['gap', 'next']);
    expect(calls.enqueue[0]!.webhookId).toMatch(/^msg_gap_[0-9a-f]{24}$/);
    expect(calls.enqueue[0]!.body.cursor).toMatch(/^ev1\./);
    await incident.emit({ id: 'after', service: 'db' });
    await new Promise((r) => setTimeout(r, 10));
    expect(calls.enqueue.map((c) => c.body.type ?? c.body.data.id)).toEqual(['gap', 'next', 'after']);
  });

  it('subscribing with a cursor replays what followed it to the callback', async () => {
    const { subscribe, incident, calls, call } = server();
    const start = (await call('events/poll', { name: 'incident.created', arguments: { service: 'db' }, cursor: null }, 'ada')).result;
    await incident.emit({ id: 'missed', service: 'db' });
    const result = (await subscribe('ada', { cursor: start.cursor })).result;
    expect(calls.enqueue.map((c) => c.body.data.id)).toEqual(['missed']);
    expect(result.truncated).toBe(false);
  });
});
