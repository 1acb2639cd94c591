/**
 * Issue 34 item 5, delivery on one instance (the in-memory store), against a receiver on 127.0.0.1
 * (allowLoopback, plain http: the development path) and verified by the `standardwebhooks` package,
 * a Standard Webhooks implementation we did not write. Retries run on a manual clock: no test waits
 * for a backoff.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  CallbackEndpointError,
  controlEnvelope,
  createWebhookEngine,
  type DeliveryGiveUp,
  memoryDeliveryStore,
  type WebhookEngine,
  type WebhookEngineOptions,
  type WebhookTarget,
} from '../../../src/events/webhooks/index.js';
import { type Answer, echoChallenge, manualClock, type Received, type Receiver, secret, startReceiver, until } from './support.js';

let receiver: Receiver;
let engine: WebhookEngine;
afterEach(async () => {
  await engine?.close();
  await receiver?.close();
});

const quiet = { log: () => {} };
function setup(answer: (request: Received) => Answer = echoChallenge, options: WebhookEngineOptions = {}) {
  return startReceiver(answer).then((started) => {
    receiver = started;
    engine = createWebhookEngine({ egress: { allowLoopback: true }, ...quiet, ...options });
    return target();
  });
}
function target(overrides: Partial<WebhookTarget> = {}): WebhookTarget {
  return { subscriptionId: 'sub_1', principal: 'alice', url: `http://127.0.0.1:${receiver.port}/hooks?key=k%2F1`, secrets: [secret()], ...overrides };
}
const occurrence = (eventId: string, data: object = { id: 1 }) => ({ webhookId: eventId, body: { eventId, name: 'incident.created', timestamp: new Date().toISOString(), data, cursor: 'c1' } });
const events = () => receiver.received.filter((r) => !r.body.includes('"verification"'));
const headersOf = (r: Received) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));

describe('verification before delivery', () => {
  it('sends a signed verification envelope to the URL as given and accepts the echoed challenge', async () => {
    const t = await setup();
    await engine.verify(t);
    const [request] = receiver.received;
    expect(request!.url).toBe('/hooks?key=k%2F1');
    expect(request!.headers['x-mcp-subscription-id']).toBe('sub_1');
    expect(request!.headers['webhook-id']).toMatch(/^msg_verification_[0-9a-f]+$/);
    const body = new Webhook(t.secrets[0]!).verify(request!.body, headersOf(request!)) as { type: string; challenge: string };
    expect(body.type).toBe('verification');
    expect(body.challenge.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses to deliver before verification, and caches it per (principal, url)', async () => {
    const t = await setup();
    expect(await engine.enqueue(t, occurrence('evt_1'))).toBe('unverified');
    await engine.verify(t);
    await engine.verify({ ...t, subscriptionId: 'sub_2' }); // the same principal and url: no second POST
    expect(receiver.received).toHaveLength(1);
    await engine.verify({ ...t, principal: 'mallory' }); // another principal is asked again
    expect(receiver.received).toHaveLength(2);
    expect(await engine.enqueue({ ...t, principal: 'eve' }, occurrence('evt_1'))).toBe('unverified');
  });

  it.each([
    ['a wrong challenge', () => ({ status: 200, body: JSON.stringify({ challenge: 'nope' }) }), 'challenge_failed'],
    ['a 2xx without a body', () => ({ status: 204 }), 'challenge_failed'],
    ['a 404', () => ({ status: 404, body: 'secret internal page' }), 'http_4xx'],
    ['a 500', () => ({ status: 500, body: 'stack trace' }), 'http_5xx'],
    ['a redirect (not followed)', () => ({ status: 302, headers: { location: 'http://127.0.0.1:1/' } }), 'http_4xx'],
  ] as const)('fails with only a category on %s', async (_why, answer, reason) => {
    const t = await setup(answer as () => Answer);
    const error = await engine.verify(t).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(CallbackEndpointError);
    expect((error as CallbackEndpointError).reason).toBe(reason);
    expect(String((error as Error).message)).not.toMatch(/secret internal|stack|127\.0\.0\.1:1/);
    expect(receiver.received).toHaveLength(1); // a redirect's target was never asked
  });

  it('rate-limits verification POSTs per host', async () => {
    const t = await setup(() => ({ status: 500 }), { verification: { perHostPerMinute: 2 } });
    for (const principal of ['a', 'b']) await expect(engine.verify({ ...t, principal })).rejects.toThrow(CallbackEndpointError);
    await expect(engine.verify({ ...t, principal: 'c' })).rejects.toMatchObject({ name: 'WebhookBoundError', bound: 'verification.perHostPerMinute' });
    expect(receiver.received).toHaveLength(2);
  });

  it('needs no challenge for an operator-verified URL prefix', async () => {
    const t = await setup(() => ({ status: 204 }));
    engine = createWebhookEngine({ egress: { allowLoopback: true }, preverifiedUrls: [`http://127.0.0.1:${receiver.port}/hooks`], ...quiet });
    await engine.verify(t);
    expect(await engine.enqueue(t, occurrence('evt_1'))).toBe('queued');
    await until(() => receiver.received.length === 1);
    expect(receiver.received[0]!.body).toContain('evt_1');
  });
});

it('an operator-verified prefix covers its own URLs only, not a longer host name', async () => {
  receiver = await startReceiver(() => ({ status: 204 }));
  const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
  engine = createWebhookEngine({ egress: { allowLoopback: true, resolve }, preverifiedUrls: ['http://localhost'], ...quiet });
  const covered = target({ url: `http://localhost:${receiver.port}/hooks` });
  expect(await engine.enqueue(covered, occurrence('evt_p'))).toBe('queued');
  const longer = target({ url: `http://localhost.evil.test:${receiver.port}/hooks` });
  expect(await engine.enqueue(longer, occurrence('evt_q'))).toBe('unverified');
});

it('a receiver document at the origin stands in for the challenge, for the paths it names, when enabled', async () => {
  const answer = (r: Received): Answer =>
    r.method === 'GET' && r.url === '/.well-known/mcp-webhook-receiver.json' ? { status: 200, body: JSON.stringify({ receivers: ['/hooks/'] }) } : { status: 500 };
  receiver = await startReceiver(answer);
  engine = createWebhookEngine({ egress: { allowLoopback: true }, verification: { wellKnown: true }, ...quiet });
  await engine.verify(target({ url: `http://127.0.0.1:${receiver.port}/hooks/a?k=1` }));
  expect(receiver.received.map((r) => r.method)).toEqual(['GET']); // no challenge POST
  expect(await engine.enqueue(target({ url: `http://127.0.0.1:${receiver.port}/hooks/a?k=1` }), occurrence('evt_w'))).toBe('queued');
  await expect(engine.verify(target({ url: `http://127.0.0.1:${receiver.port}/hooksx` }))).rejects.toMatchObject({ reason: 'http_5xx' }); // not named: challenged
  await expect(engine.verify(target({ url: `http://127.0.0.1:${receiver.port}/other` }))).rejects.toMatchObject({ reason: 'http_5xx' });
  expect(receiver.received.filter((r) => r.method === 'GET')).toHaveLength(1); // cached per origin
  await engine.close();
  engine = createWebhookEngine({ egress: { allowLoopback: true }, ...quiet }); // off by default
  await expect(engine.verify(target({ url: `http://127.0.0.1:${receiver.port}/hooks/b` }))).rejects.toMatchObject({ reason: 'http_5xx' });
});

describe('signed deliveries', () => {
  it('every delivery verifies with standardwebhooks, and a tampered one does not', async () => {
    const t = await setup();
    await engine.verify(t);
    for (let i = 0; i < 5; i++) expect(await engine.enqueue(t, occurrence(`evt_${i}`, { i }))).toBe('queued');
    await until(() => events().length === 5);
    const verifier = new Webhook(t.secrets[0]!);
    for (const request of events()) {
      const headers = headersOf(request);
      const body = verifier.verify(request.body, headers) as { eventId: string };
      expect(headers['webhook-id']).toBe(body.eventId); // the occurrence's eventId, as receivers expect
      expect(headers['content-type']).toBe('application/json');
      expect(headers['x-mcp-subscription-id']).toBe('sub_1');
      expect(request.url).toBe('/hooks?key=k%2F1');
      expect(() => verifier.verify(request.body.replace('"i":', '"j":'), headers)).toThrow();
      expect(() => verifier.verify(request.body, { ...headers, 'webhook-id': 'evt_other' })).toThrow();
      expect(() => new Webhook(secret()).verify(request.body, headers)).toThrow();
    }
  });

  it('during rotation every delivery is signed with each secret', async () => {
    const [newer, older] = [secret(), secret(48)];
    const t = await setup();
    await engine.verify({ ...t, secrets: [newer, older] });
    await engine.enqueue({ ...t, secrets: [newer, older] }, occurrence('evt_r'));
    await until(() => events().length === 1);
    const request = events()[0]!;
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const key of [newer, older]) expect(new Webhook(key).verify(request.body, headersOf(request))).toMatchObject({ eventId: 'evt_r' });
  });

  it('control envelopes carry a msg_<type>_ id', async () => {
    const t = await setup();
    await engine.verify(t);
    await engine.enqueue(t, controlEnvelope('gap', { cursor: 'c9' }));
    await until(() => events().length === 1);
    expect(events()[0]!.headers['webhook-id']).toMatch(/^msg_gap_[0-9a-f]{24}$/);
    expect(JSON.parse(events()[0]!.body)).toEqual({ type: 'gap', cursor: 'c9' });
  });

  it('a 2xx counts at once: the answer body of a delivery is not waited for', async () => {
    const given: DeliveryGiveUp[] = [];
    const t = await setup((r) => (r.body.includes('"verification"') ? echoChallenge(r) : 'trickle'), { timeoutMs: 1_500, leaseMs: 30_000, onGiveUp: (g) => given.push(g) });
    await engine.verify(t);
    await engine.enqueue(t, occurrence('evt_t'));
    await until(() => events().length === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(await engine.status('sub_1')).toMatchObject({ lastError: null, lastDeliveryAt: expect.any(String) });
  });

  it('refuses a target without a valid secret at enqueue (nothing unsigned is ever queued)', async () => {
    const t = await setup();
    await engine.verify(t);
    await expect(engine.enqueue({ ...t, secrets: [] }, occurrence('evt_x'))).rejects.toMatchObject({ field: 'delivery.secret' });
    await expect(engine.enqueue({ ...t, secrets: ['whsec_short'] }, occurrence('evt_x'))).rejects.toMatchObject({ field: 'delivery.secret' });
    await new Promise((r) => setTimeout(r, 50));
    expect(events()).toHaveLength(0);
  });

  it('a store that fails is logged once per outage, not at every poll', async () => {
    const lines: string[] = [];
    const clock = manualClock();
    const failing = memoryDeliveryStore();
    failing.claim = async () => {
      throw new Error('store down');
    };
    receiver = await startReceiver();
    engine = createWebhookEngine({ store: failing, clock, log: (line) => lines.push(line), pollMs: 100 });
    for (let i = 0; i < 5; i++) {
      clock.advance(100);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(lines.filter((line) => line.includes('store down'))).toHaveLength(1);
  });

  it('refuses a body over 256 KiB at enqueue, and the same occurrence twice', async () => {
    const t = await setup();
    await engine.verify(t);
    await expect(engine.enqueue(t, { webhookId: 'big', body: 'x'.repeat(256 * 1024 + 1) })).rejects.toMatchObject({ field: 'body' });
    expect(await engine.enqueue(t, { webhookId: 'ok', body: JSON.stringify({ s: 'x'.repeat(256 * 1024 - 10) }) })).toBe('queued');
    expect(await engine.enqueue(t, occurrence('evt_d'))).toBe('queued');
    expect(await engine.enqueue(t, occurrence('evt_d'))).toBe('duplicate');
    await until(() => events().length === 2);
    expect(await engine.enqueue(t, occurrence('evt_d'))).toBe('duplicate'); // delivered recently
  });
});

describe('failures, retries and bounds', () => {
  async function failing(statuses: number[], options: WebhookEngineOptions = {}) {
    const clock = manualClock();
    const given: DeliveryGiveUp[] = [];
    let n = 0;
    const t = await setup((r) => (r.body.includes('"verification"') ? echoChallenge(r) : { status: statuses[Math.min(n++, statuses.length - 1)]!, body: 'endpoint detail' }), {
      clock,
      onGiveUp: (g) => given.push(g),
      retry: { firstDelayMs: 1_000, factor: 2, attempts: 4, windowMs: 60_000 },
      ...options,
    });
    await engine.verify(t);
    return { t, clock, given };
  }

  it('retries a 5xx with exponential backoff (1 s, 2 s, 4 s) and a fresh signature, then gives up', async () => {
    const { t, clock, given } = await failing([503]);
    const t0 = clock.now();
    await engine.enqueue(t, occurrence('evt_b'));
    await until(() => events().length === 1);
    for (const [at, expected] of [[1_000, 2], [3_000, 3], [7_000, 4]] as const) {
      await until(() => clock.scheduled().includes(t0 + at)); // the last attempt settled: its retry is set for then
      clock.advance(t0 + at - 1 - clock.now());
      await new Promise((r) => setTimeout(r, 30));
      expect(events()).toHaveLength(expected - 1); // not a millisecond early
      clock.advance(1);
      await until(() => events().length === expected);
    }
    await until(() => given.length === 1);
    expect(given[0]).toMatchObject({ webhookId: 'evt_b', reason: 'http_5xx' });
    const stamps = events().map((r) => Number(r.headers['webhook-timestamp']));
    expect(stamps[3]! - stamps[0]!).toBe(7); // each attempt signed at its own time
    for (const r of events()) expect(new Webhook(t.secrets[0]!).verify(r.body, headersOf(r))).toBeTruthy();
    clock.advance(60_000);
    await new Promise((r) => setTimeout(r, 30));
    expect(events()).toHaveLength(4);
    const status = await engine.status('sub_1');
    expect(status).toMatchObject({ active: true, lastDeliveryAt: null, lastError: 'http_5xx' });
    expect(JSON.stringify(status)).not.toContain('endpoint detail');
  });

  it.each([
    [410, 'gone'],
    [413, 'too_large'],
  ] as const)('does not retry a %i', async (code, reason) => {
    const { t, clock, given } = await failing([code]);
    await engine.enqueue(t, occurrence('evt_n'));
    await until(() => given.length === 1);
    clock.advance(600_000);
    await new Promise((r) => setTimeout(r, 30));
    expect(events()).toHaveLength(1);
    expect(given[0]).toMatchObject({ reason, webhookId: 'evt_n', target: { subscriptionId: 'sub_1' } });
  });

  it('does not follow a redirect, and retries it as a failure', async () => {
    const { t, given } = await failing([307], { retry: { attempts: 1 } });
    await engine.enqueue(t, occurrence('evt_3'));
    await until(() => given.length === 1);
    expect(given[0]!.reason).toBe('http_4xx');
    expect(receiver.received.filter((r) => r.url !== '/hooks?key=k%2F1')).toEqual([]);
  });

  it('recovers after failures: a 2xx clears lastError and sets lastDeliveryAt', async () => {
    const { t, clock } = await failing([500, 204]);
    const t0 = clock.now();
    await engine.enqueue(t, occurrence('evt_ok'));
    await until(() => events().length === 1 && clock.scheduled().includes(t0 + 1_000));
    clock.advance(1_000);
    await until(() => events().length === 2);
    await new Promise((r) => setTimeout(r, 20));
    expect(await engine.status('sub_1')).toMatchObject({ active: true, lastError: null, lastDeliveryAt: expect.any(String) });
  });

  it('suspends after a sustained failure rate, holds deliveries, and a refresh reactivates', async () => {
    const suspended: string[] = [];
    const { t, clock } = await failing([500], { retry: { attempts: 1 }, suspension: { minAttempts: 4, failureRate: 0.5 }, onSuspended: (id) => suspended.push(id) });
    for (let i = 0; i < 4; i++) await engine.enqueue(t, occurrence(`evt_s${i}`));
    await until(() => suspended.length === 1);
    expect(await engine.status('sub_1')).toMatchObject({ active: false, lastError: 'http_5xx', failedSince: expect.any(String) });
    const before = events().length;
    await engine.enqueue(t, occurrence('evt_held'));
    clock.advance(1_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(events()).toHaveLength(before);
    await engine.reactivate('sub_1');
    await until(() => events().some((r) => r.body.includes('evt_held')));
    expect((await engine.status('sub_1'))!.active).toBe(true);
  });

  it('time spent suspended does not use up the retry window', async () => {
    const suspended: string[] = [];
    const { t, clock, given } = await failing([500], { retry: { firstDelayMs: 1_000, factor: 2, attempts: 3, windowMs: 60_000 }, suspension: { minAttempts: 2, failureRate: 0.5 }, onSuspended: (id) => suspended.push(id) });
    const t0 = clock.now();
    await engine.enqueue(t, occurrence('evt_a'));
    await engine.enqueue(t, occurrence('evt_b'));
    await until(() => suspended.length === 1 && events().length === 2 && clock.scheduled().includes(t0 + 1_000));
    await new Promise((r) => setTimeout(r, 50)); // the second attempt's retry is written too
    clock.advance(1_000); // both retries come due: held, not sent
    await new Promise((r) => setTimeout(r, 50));
    expect(events()).toHaveLength(2);
    clock.advance(120_000); // suspended for longer than the whole window
    await engine.reactivate('sub_1');
    await until(() => events().length === 4);
    await new Promise((r) => setTimeout(r, 50));
    expect(given).toEqual([]); // to be retried again, not abandoned for the time spent suspended
  });

  it('a slow host with a backlog does not hold up another host: due deliveries are taken round-robin by host', async () => {
    const slow = await startReceiver((r) => (r.body.includes('"verification"') ? echoChallenge(r) : 'hang'));
    try {
      const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
      const t = await setup(echoChallenge, { concurrency: 2, timeoutMs: 300, leaseMs: 30_000, retry: { attempts: 1 }, egress: { allowLoopback: true, resolve } });
      const stuck = { ...t, subscriptionId: 'sub_slow', url: `http://localhost:${slow.port}/slow` };
      await engine.verify(stuck);
      await engine.verify(t);
      for (let i = 0; i < 20; i++) await engine.enqueue(stuck, occurrence(`slow_${i}`));
      await until(() => slow.received.length === 3); // the verification and the first two attempts
      await engine.enqueue(t, occurrence('fast_1'));
      await until(() => events().length === 1, 10_000);
      expect(slow.received.length).toBeLessThanOrEqual(6); // first in first out, it would wait for all 20
    } finally {
      await engine.close();
      await slow.close();
    }
  });

  it('bounds pending deliveries per principal and in all (count and bytes)', async () => {
    const t = await setup((r) => (r.body.includes('"verification"') ? echoChallenge(r) : 'hang'), {
      limits: { perPrincipal: 2, total: 3, bytesPerPrincipal: 10_000 },
      timeoutMs: 60_000,
      leaseMs: 120_000,
    });
    await engine.verify(t);
    await engine.verify({ ...t, principal: 'bob' });
    expect(await engine.enqueue(t, occurrence('a1'))).toBe('queued');
    expect(await engine.enqueue(t, occurrence('a2'))).toBe('queued');
    expect(await engine.enqueue(t, occurrence('a3'))).toBe('limit');
    expect(await engine.enqueue({ ...t, principal: 'bob', subscriptionId: 'sub_b' }, occurrence('b1'))).toBe('queued');
    expect(await engine.enqueue({ ...t, principal: 'bob', subscriptionId: 'sub_b' }, occurrence('b2'))).toBe('limit'); // total 3
    await engine.forget('sub_1');
    expect(await engine.enqueue({ ...t, principal: 'bob', subscriptionId: 'sub_b' }, occurrence('b3'))).toBe('queued');
    expect(await engine.enqueue({ ...t, subscriptionId: 'sub_c' }, { webhookId: 'fat', body: { s: 'x'.repeat(10_000) } })).toBe('limit');
  });
});
