/**
 * Webhook subscription records on a real redis-server: a subscription made on one server is served
 * by another (an emit there reaches it, after the first is gone), bounds hold over both, refresh is
 * idempotent, and unsubscribe works from either. The engines record what they are asked.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiniMCP } from '../../src/index.js';
import type { WebhookSettings, WebhookTarget } from '../../src/events/webhook-settings.js';
import { redisState, type RedisState } from '../../src/redis/index.js';
import { clusterAvailable, startRedis } from './support/cluster.js';
import { redisStates } from './support/redis-states.js';

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const secret = randomBytes(32).toString('base64url');

function engine() {
  const enqueued: { target: WebhookTarget; webhookId: string }[] = [];
  const forgotten: string[] = [];
  const value: WebhookSettings['engine'] = {
    verify: async () => {},
    enqueue: async (target, delivery) => {
      enqueued.push({ target, webhookId: delivery.webhookId });
      return 'queued';
    },
    status: async () => undefined,
    reactivate: async () => {},
    forget: async (id) => void forgotten.push(id),
    close: async () => {},
  };
  return { value, enqueued, forgotten };
}

describe.skipIf(!clusterAvailable())('webhook subscriptions on Redis', () => {
  const { states } = redisStates('evsub');

  function server(state: RedisState) {
    const recorded = engine();
    const mcp = new MiniMCP<{ principal?: string }>({ name: 's', version: '1', state, requestState: { secret }, onError: () => {} });
    mcp.configureEvents({ webhooks: { engine: recorded.value, validateUrl: () => {}, validateSecret: () => {}, maxSubscriptionsPerPrincipal: 2 } });
    const incident = mcp.event('incident.created', { description: 'i', input: z.object({ service: z.string().optional() }), payload: z.object({ service: z.string() }) });
    const call = async (method: string, params: Record<string, unknown>, principal: string) =>
      (await mcp.handle({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }, { scope: { principal } })) as any;
    const subscribe = (principal: string, url: string) =>
      call('events/subscribe', { name: 'incident.created', arguments: { service: 'db' }, delivery: { mode: 'webhook', url, secret: SECRET } }, principal);
    return { incident, call, subscribe, ...recorded };
  }

  it('serves a subscription made elsewhere, bounds it over both, and unsubscribes from either', async () => {
    const a = server(states[0]!);
    const b = server(states[1]!);
    const made = (await a.subscribe('ada', 'https://hooks.example/1?k=1')).result;
    expect((await b.subscribe('ada', 'https://hooks.example/1?k=1')).result.id).toBe(made.id); // a refresh, from the other server
    await b.subscribe('ada', 'https://hooks.example/2');
    expect((await b.subscribe('ada', 'https://hooks.example/3')).error).toMatchObject({ code: -32025, data: { max: 2 } });
    const { eventId } = await b.incident.emit({ service: 'db' });
    await new Promise((r) => setTimeout(r, 50));
    expect(b.enqueued.map((e) => [e.target.url, e.webhookId])).toEqual([['https://hooks.example/1?k=1', eventId], ['https://hooks.example/2', eventId]]);
    expect(a.enqueued).toEqual([]); // delivered by the instance that emitted it, not by every instance
    const key = { name: 'incident.created', arguments: { service: 'db' }, delivery: { url: 'https://hooks.example/1?k=1' } };
    expect((await a.call('events/unsubscribe', key, 'ada')).result).toEqual({ resultType: 'complete' });
    expect((await b.call('events/unsubscribe', key, 'ada')).error.data).toEqual({ kind: 'subscription' });
    await a.incident.emit({ service: 'db' });
    await new Promise((r) => setTimeout(r, 50));
    expect(a.enqueued.map((e) => e.target.url)).toEqual(['https://hooks.example/2']);
  });
});

describe.skipIf(!clusterAvailable())('no-expiry webhook subscriptions on Redis', () => {
  it('are granted (refreshBefore: null) where the records are durable, with their verification kept', async () => {
    const redis = await startRedis();
    const state = await redisState({ url: redis.url, prefix: `evnull${randomBytes(3).toString('hex')}:`, onError: () => {} });
    try {
      const kept: unknown[] = [];
      const recorded = engine();
      const verify = recorded.value.verify;
      recorded.value.verify = async (target, options) => {
        kept.push(options?.keepMs);
        return verify(target, options);
      };
      const mcp = new MiniMCP<{ principal?: string }>({ name: 's', version: '1', state, requestState: { secret }, onError: () => {} });
      mcp.configureEvents({ webhooks: { engine: recorded.value, validateUrl: () => {}, validateSecret: () => {} } });
      const incident = mcp.event('incident.created', { description: 'i', payload: z.object({ service: z.string() }) });
      const subscribe = async (ttlMs: number | null) => ((await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'events/subscribe', params: { name: 'incident.created', delivery: { mode: 'webhook', url: 'https://h.example/x', secret: SECRET }, ttlMs, _meta: meta } }, { scope: { principal: 'ada' } })) as any).result;
      expect((await subscribe(null)).refreshBefore).toBeNull();
      expect(kept).toEqual([null]);
      const { createClient } = await import('redis');
      const client = await createClient({ url: redis.url }).connect();
      const keys = await client.keys('evnull*evsub:*');
      expect(await client.pTTL(keys[0]!)).toBe(-1); // never expires
      await client.quit();
      await incident.emit({ service: 'db' });
      await new Promise((r) => setTimeout(r, 30));
      expect(recorded.enqueued).toHaveLength(1);
      expect((await subscribe(60_000)).refreshBefore).toEqual(expect.any(String)); // a refresh with a TTL makes it expire again
    } finally {
      await state.close();
      await redis.stop();
    }
  });
});
