/**
 * Issue 34 item 5, once per cluster: three webhook engines share one real redis-server (each with its
 * own connection, as three instances would). Every occurrence is enqueued on all three (each instance
 * saw the event) and reaches the receiver exactly once; a verification made on one instance holds on
 * the others; the pending bounds hold across instances; and a delivery whose instance dies mid-attempt
 * is delivered by another once its lease runs out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createWebhookEngine, type DeliveryStore, redisDeliveryStore, type WebhookEngine, type WebhookTarget } from '../../../src/events/webhooks/index.js';
import { clusterAvailable, startRedis, type Redis } from '../../state/support/cluster.js';
import { type Answer, echoChallenge, type Received, type Receiver, secret, startReceiver, until } from './support.js';

const available = clusterAvailable();

describe.skipIf(!available)('webhook delivery on Redis (real redis-server)', () => {
  let redis: Redis;
  let receiver: Receiver;
  let answer: (request: Received) => Answer = echoChallenge;
  const opened: Array<{ engine: WebhookEngine; store: DeliveryStore }> = [];

  async function instance(prefix: string, options: Parameters<typeof createWebhookEngine>[0] = {}) {
    const store = await redisDeliveryStore({ url: redis.url, prefix });
    const engine = createWebhookEngine({ store, egress: { allowLoopback: true }, pollMs: 50, log: () => {}, ...options });
    opened.push({ engine, store });
    return engine;
  }
  const target = (subscriptionId: string, principal = 'alice'): WebhookTarget => ({
    subscriptionId,
    principal,
    url: `http://127.0.0.1:${receiver.port}/hooks?key=${principal}`,
    secrets: [SECRET],
  });
  const SECRET = secret();
  const deliveries = (id?: string) => receiver.received.filter((r) => !r.body.includes('"verification"') && (id === undefined || r.headers['webhook-id'] === id));

  beforeAll(async () => {
    redis = await startRedis();
    receiver = await startReceiver((request) => answer(request));
  }, 60_000);
  afterAll(async () => {
    for (const { engine, store } of opened) await engine.close().then(() => store.close());
    await receiver?.close();
    await redis?.stop();
  });

  it('three instances: each occurrence enqueued on all three is delivered once, signed', async () => {
    const engines = await Promise.all(['a', 'b', 'c'].map(() => instance('wh1:')));
    const [a, b, c] = engines as [WebhookEngine, WebhookEngine, WebhookEngine];
    const subs = ['sub_x', 'sub_y'];
    await a.verify(target('sub_x'));
    expect(await b.enqueue(target('sub_y', 'mallory'), { webhookId: 'e', body: {} })).toBe('unverified');
    const outcomes: string[] = [];
    for (let i = 0; i < 30; i++) {
      for (const sub of subs) {
        const delivery = { webhookId: `evt_${i}`, body: { eventId: `evt_${i}`, name: 'incident.created', data: { i } } };
        outcomes.push(...(await Promise.all(engines.map((engine) => engine.enqueue(target(sub), delivery)))));
      }
    }
    expect(outcomes.filter((o) => o === 'queued')).toHaveLength(60); // one of three per (subscription, occurrence)
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(120);
    await until(() => deliveries().length >= 60, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // more polls: nothing else may arrive
    expect(deliveries()).toHaveLength(60);
    const seen = new Set(deliveries().map((r) => `${r.headers['x-mcp-subscription-id']} ${r.headers['webhook-id']}`));
    expect(seen.size).toBe(60);
    for (const r of deliveries()) {
      const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
      expect(new Webhook(SECRET).verify(r.body, headers)).toMatchObject({ name: 'incident.created' });
    }
    expect(await c.status('sub_x')).toMatchObject({ active: true, lastError: null, lastDeliveryAt: expect.any(String) });
  });

  it('pending bounds hold across instances', async () => {
    answer = (r) => (r.body.includes('"verification"') ? echoChallenge(r) : 'hang');
    const [a, b] = (await Promise.all([1, 2].map(() => instance('wh2:', { limits: { perPrincipal: 2 }, timeoutMs: 20_000, leaseMs: 30_000 })))) as [WebhookEngine, WebhookEngine];
    await a.verify(target('sub_l', 'bob'));
    expect(await a.enqueue(target('sub_l', 'bob'), { webhookId: 'l1', body: {} })).toBe('queued');
    expect(await b.enqueue(target('sub_l', 'bob'), { webhookId: 'l2', body: {} })).toBe('queued');
    expect(await b.enqueue(target('sub_l', 'bob'), { webhookId: 'l3', body: {} })).toBe('limit');
    await b.forget('sub_l');
    expect(await a.enqueue(target('sub_l', 'bob'), { webhookId: 'l4', body: {} })).toBe('queued');
    answer = echoChallenge;
  });

  it('suspension is shared: one instance suspends, another reports it and reactivates, the held delivery goes out', async () => {
    let healthy = false;
    answer = (r) => (r.body.includes('"verification"') ? echoChallenge(r) : { status: healthy ? 204 : 503 });
    const suspended: string[] = [];
    const options = { retry: { attempts: 1 }, suspension: { minAttempts: 3, failureRate: 0.5 }, onSuspended: (id: string) => suspended.push(id) };
    const [a, b] = (await Promise.all([1, 2].map(() => instance('wh4:', options)))) as [WebhookEngine, WebhookEngine];
    await a.verify(target('sub_s'));
    for (let i = 0; i < 3; i++) await a.enqueue(target('sub_s'), { webhookId: `s${i}`, body: {} });
    await until(() => suspended.length === 1, 5_000);
    expect(await b.status('sub_s')).toMatchObject({ active: false, lastError: 'http_5xx', lastDeliveryAt: null, failedSince: expect.any(String) });
    const before = deliveries().length;
    expect(await b.enqueue(target('sub_s'), { webhookId: 'held', body: {} })).toBe('queued');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deliveries()).toHaveLength(before); // parked while suspended
    healthy = true;
    await b.reactivate('sub_s');
    await until(() => deliveries('held').length === 1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await a.status('sub_s')).toMatchObject({ active: true, lastError: null, lastDeliveryAt: expect.any(String) });
    answer = echoChallenge;
  });

  it('retries across instances with backoff, counting attempts in the shared job, then gives up', async () => {
    const failures = new Map<string, number>();
    answer = (r) => {
      if (r.body.includes('"verification"')) return echoChallenge(r);
      const id = String(r.headers['webhook-id']);
      failures.set(id, (failures.get(id) ?? 0) + 1);
      return id === 'r_ok' && failures.get(id)! >= 3 ? { status: 204 } : { status: 500 };
    };
    const given: string[] = [];
    const options = { retry: { attempts: 3, firstDelayMs: 100, factor: 2 }, onGiveUp: (g: { webhookId: string }) => given.push(g.webhookId) };
    const [a, b] = (await Promise.all([1, 2].map(() => instance('wh5:', options)))) as [WebhookEngine, WebhookEngine];
    await a.verify(target('sub_r'));
    await a.enqueue(target('sub_r'), { webhookId: 'r_ok', body: {} });
    await b.enqueue(target('sub_r'), { webhookId: 'r_never', body: {} });
    await until(() => given.length === 1 && deliveries('r_ok').length === 3, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(given).toEqual(['r_never']); // three attempts in all, wherever they ran
    expect(deliveries('r_never')).toHaveLength(3);
    expect(deliveries('r_ok')).toHaveLength(3);
    expect(await a.status('sub_r')).toMatchObject({ lastDeliveryAt: expect.any(String) });
    answer = echoChallenge;
  });

  it('a slow host with a backlog does not hold up another host: claims go round-robin by host', async () => {
    const slow = await startReceiver((r) => (r.body.includes('"verification"') ? echoChallenge(r) : 'hang'));
    try {
      const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
      const a = await instance('wh6:', { concurrency: 2, timeoutMs: 300, leaseMs: 30_000, retry: { attempts: 1 }, egress: { allowLoopback: true, resolve } });
      const stuck = { ...target('sub_slow'), url: `http://localhost:${slow.port}/slow` };
      await a.verify(stuck);
      await a.verify(target('sub_fast'));
      for (let i = 0; i < 20; i++) await a.enqueue(stuck, { webhookId: `slow_${i}`, body: {} });
      await until(() => slow.received.length === 3);
      await a.enqueue(target('sub_fast'), { webhookId: 'fast_1', body: {} });
      await until(() => deliveries('fast_1').length === 1, 10_000);
      expect(slow.received.length).toBeLessThanOrEqual(6); // in due order it would wait for all 20
    } finally {
      await slow.close();
    }
  });

  it('a delivery whose instance closed mid-attempt is delivered by another after the lease', async () => {
    let first = true;
    answer = (r) => {
      if (r.body.includes('"verification"')) return echoChallenge(r);
      if (r.headers['webhook-id'] === 'evt_orphan' && first) return (first = false), 'hang';
      return { status: 204 };
    };
    const a = await instance('wh3:', { timeoutMs: 500, leaseMs: 1_000 });
    await a.verify(target('sub_o'));
    expect(await a.enqueue(target('sub_o'), { webhookId: 'evt_orphan', body: { eventId: 'evt_orphan' } })).toBe('queued');
    await until(() => deliveries('evt_orphan').length === 1);
    await a.close(); // dies mid-attempt: the claim stays until its lease ends
    const b = await instance('wh3:', { timeoutMs: 500, leaseMs: 1_000 });
    await until(() => deliveries('evt_orphan').length === 2, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await b.status('sub_o')).toMatchObject({ lastError: null, lastDeliveryAt: expect.any(String) });
    expect(await b.enqueue(target('sub_o'), { webhookId: 'evt_orphan', body: {} })).toBe('duplicate');
  });
});
