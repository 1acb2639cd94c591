/**
 * Issue 34 item 5, egress safety on the wire: host names that resolve to forbidden addresses are
 * refused before any connection (each class, and a name mixing a public and a private answer); the
 * connection goes to the address that was checked (one resolution, SNI and Host kept as the URL's
 * host); https to a self-signed receiver works only with its CA; a slow endpoint times out; an
 * endless answer is cut off; plain http is refused outside loopback development mode.
 */
import { getEventListeners } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createWebhookEngine, type WebhookEngine, type WebhookTarget } from '../../../src/events/webhooks/index.js';
import { post } from '../../../src/events/webhooks/post.js';
import { type Receiver, echoChallenge, secret, selfSignedCertificate, startReceiver, until } from './support.js';

let receiver: Receiver | undefined;
let engine: WebhookEngine | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await engine?.close();
  await receiver?.close();
  engine = receiver = undefined;
});

const target = (url: string, principal = 'alice'): WebhookTarget => ({ subscriptionId: 'sub_e', principal, url, secrets: [secret()] });
const resolver = (answers: Record<string, string[]>) => {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (host: string) => {
      calls.push(host);
      return (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
};

describe('host names resolving to forbidden addresses', () => {
  const classes: Array<[string, string]> = [
    ['loopback', '127.0.0.1'],
    ['loopback v6', '::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['private', '10.0.0.5'],
    ['private 172.16/12', '172.20.1.1'],
    ['private 192.168/16', '192.168.0.10'],
    ['carrier-grade NAT', '100.100.100.100'],
    ['cloud metadata', '169.254.169.254'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
    ['NAT64 metadata', '64:ff9b::a9fe:a9fe'],
    ['6to4 private', '2002:a00:1::1'],
    ['unique local', 'fd00::1'],
    ['link-local v6', 'fe80::1'],
    ['multicast', '224.0.0.251'],
    ['unspecified', '0.0.0.0'],
    ['reserved', '240.0.0.1'],
  ];
  it.each(classes)('refuses a name resolving to %s (%s), with no connection attempt', async (_class, address) => {
    const requests = [vi.spyOn(https, 'request'), vi.spyOn(http, 'request')];
    const dns = resolver({ 'hooks.example.com': [address] });
    engine = createWebhookEngine({ egress: { resolve: dns.resolve }, log: () => {} });
    await expect(engine.verify(target('https://hooks.example.com/h'))).rejects.toMatchObject({ name: 'CallbackEndpointError', reason: 'connection_refused' });
    expect(dns.calls).toEqual(['hooks.example.com']);
    for (const spy of requests) expect(spy).not.toHaveBeenCalled();
  });

  it('refuses a name whose answers mix a public and a private address', async () => {
    const spy = vi.spyOn(https, 'request');
    const dns = resolver({ 'mixed.example.com': ['93.184.216.34', '10.0.0.1'] });
    engine = createWebhookEngine({ egress: { resolve: dns.resolve }, log: () => {} });
    await expect(engine.verify(target('https://mixed.example.com/h'))).rejects.toMatchObject({ reason: 'connection_refused' });
    expect(spy).not.toHaveBeenCalled();
  });

  it('refuses a name that does not resolve', async () => {
    engine = createWebhookEngine({ egress: { resolve: resolver({}).resolve }, log: () => {} });
    await expect(engine.verify(target('https://nowhere.example.com/h'))).rejects.toMatchObject({ reason: 'connection_refused' });
  });

  it('checks again at delivery time: a name that rebinds to loopback after verification gets no delivery', async () => {
    const { cert, key } = selfSignedCertificate('hooks.test');
    receiver = await startReceiver(echoChallenge, { cert, key });
    const answers: Record<string, string[]> = { 'hooks.test': ['127.0.0.1'] };
    const given: string[] = [];
    engine = createWebhookEngine({ egress: { allow: ['127.0.0.1'], resolve: resolver(answers).resolve }, ca: cert, retry: { attempts: 1 }, onGiveUp: (g) => given.push(g.reason), log: () => {} });
    const t = target(`https://hooks.test:${receiver.port}/h`);
    await engine.verify(t);
    answers['hooks.test'] = ['::ffff:127.0.0.2']; // not in the allowlist
    await engine.enqueue(t, { webhookId: 'evt_1', body: { eventId: 'evt_1' } });
    await until(() => given.length === 1);
    expect(given).toEqual(['connection_refused']);
    expect(receiver.received).toHaveLength(1); // the verification only
  });
});

describe('https with a self-signed receiver', () => {
  it('connects to the checked address only, with the URL host as SNI and Host, and verifies with the given CA', async () => {
    const { cert, key } = selfSignedCertificate('hooks.test');
    receiver = await startReceiver(echoChallenge, { cert, key });
    let calls = 0;
    // The first answer is the checked one; a second resolution would get a forbidden address.
    const resolve = async () => [{ address: calls++ === 0 ? '127.0.0.1' : '10.9.9.9', family: 4 }];
    engine = createWebhookEngine({ egress: { allow: ['127.0.0.0/8'], resolve }, ca: cert, log: () => {} });
    const t = target(`https://hooks.test:${receiver.port}/cb?key=x`);
    await engine.verify(t);
    expect(calls).toBe(1);
    calls = 0;
    await engine.enqueue(t, { webhookId: 'evt_s', body: { eventId: 'evt_s' } });
    await until(() => receiver!.received.length === 2);
    expect(calls).toBe(1);
    expect(receiver.servernames).toEqual(['hooks.test', 'hooks.test']);
    const delivery = receiver.received[1]!;
    expect(delivery.headers.host).toBe(`hooks.test:${receiver.port}`);
    expect(delivery.url).toBe('/cb?key=x');
    const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
    expect(new Webhook(t.secrets[0]!).verify(delivery.body, headers)).toEqual({ eventId: 'evt_s' });
  });

  it('fails with tls_error without the CA, and with a certificate for another name', async () => {
    const { cert, key } = selfSignedCertificate('other.test');
    receiver = await startReceiver(echoChallenge, { cert, key });
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    engine = createWebhookEngine({ egress: { allow: ['127.0.0.1'], resolve }, log: () => {} });
    await expect(engine.verify(target(`https://hooks.test:${receiver.port}/h`))).rejects.toMatchObject({ reason: 'tls_error' });
    await engine.close();
    engine = createWebhookEngine({ egress: { allow: ['127.0.0.1'], resolve }, ca: cert, log: () => {} });
    await expect(engine.verify(target(`https://hooks.test:${receiver.port}/h`))).rejects.toMatchObject({ reason: 'tls_error' });
  });

  it('refuses plain http to an allowlisted address (https only outside loopback development)', async () => {
    receiver = await startReceiver();
    engine = createWebhookEngine({ egress: { allow: ['127.0.0.1'] }, log: () => {} });
    await expect(engine.verify(target(`http://127.0.0.1:${receiver.port}/h`))).rejects.toMatchObject({ name: 'WebhookParamsError', field: 'delivery.url' });
    expect(receiver.connections).toBe(0);
  });
});

describe('bounded time and bytes', () => {
  it('a slow endpoint times out', async () => {
    receiver = await startReceiver(() => 'hang');
    engine = createWebhookEngine({ egress: { allowLoopback: true }, timeoutMs: 200, log: () => {} });
    const started = Date.now();
    await expect(engine.verify(target(`http://127.0.0.1:${receiver.port}/h`))).rejects.toMatchObject({ reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5_000); // the receiver never answers: without the deadline this waits forever
  });

  it('an endless answer is cut off after maxResponseBytes (challenge_failed, not a timeout)', async () => {
    receiver = await startReceiver(() => 'flood');
    engine = createWebhookEngine({ egress: { allowLoopback: true }, timeoutMs: 10_000, maxResponseBytes: 4_096, log: () => {} });
    const started = Date.now();
    await expect(engine.verify(target(`http://127.0.0.1:${receiver.port}/h`))).rejects.toMatchObject({ reason: 'challenge_failed' });
    expect(Date.now() - started).toBeLessThan(5_000);
    await until(() => receiver!.flooded > 0);
    expect(receiver.flooded).toBeLessThan(16 * 1024 * 1024);
  });

  it('says so loudly when loopback is allowed', () => {
    const lines: string[] = [];
    engine = createWebhookEngine({ egress: { allowLoopback: true }, log: (line) => lines.push(line) });
    expect(lines.join('\n')).toMatch(/loopback.*development only/);
  });
});

it('an attempt leaves no listener on the engine-wide abort signal (it lives as long as the engine)', async () => {
  receiver = await startReceiver(() => ({ status: 204 }));
  const signal = new AbortController().signal;
  const options = { policy: { allowLoopback: true }, ca: undefined, timeoutMs: 2_000, maxResponseBytes: 100, signal };
  for (let i = 0; i < 3; i++) expect(await post(new URL(`http://127.0.0.1:${receiver.port}/`), {}, '{}', options)).toMatchObject({ status: 204 });
  expect(getEventListeners(signal, 'abort')).toHaveLength(0);
});
