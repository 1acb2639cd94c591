/**
 * Webhooks on a real cluster: three members of examples/events on one redis-server. A subscription is
 * made on one member, which is then killed; incidents raised on the others reach the callback once
 * each (one delivery per occurrence per subscription, not one per instance), every delivery verified
 * by the `standardwebhooks` package, and a tampered body refused by it.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterAvailable, startCluster, type Cluster } from './support/cluster.js';
import { HEADERS } from './support/http.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/events/http.ts', import.meta.url));
const V = '2026-07-28';
const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let nextId = 1;

async function call(url: string, token: string, method: string, params: Record<string, unknown>): Promise<any> {
  const headers: Record<string, string> = { ...HEADERS, 'mcp-protocol-version': V, 'mcp-method': method, authorization: `Bearer ${token}` };
  if (method === 'tools/call') headers['mcp-name'] = String(params.name);
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } }) });
  return response.json();
}

/** A receiver that answers the challenge and verifies every delivery with standardwebhooks. */
async function receiver() {
  const verifier = new Webhook(SECRET.slice('whsec_'.length));
  const deliveries: { id: string; eventId: string }[] = [];
  const rejected: string[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    let payload: any;
    try {
      payload = verifier.verify(body, headers);
    } catch {
      rejected.push(body);
      res.writeHead(400).end();
      return;
    }
    if (payload.type === 'verification') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: payload.challenge }));
    deliveries.push({ id: headers['webhook-id']!, eventId: payload.eventId });
    // A tampered copy of what we just accepted must not verify.
    try {
      verifier.verify(body.replace('"high"', '"low"'), headers);
    } catch {
      rejected.push('tampered');
    }
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?k=1`, deliveries, rejected, close: () => new Promise((r) => server.close(r)) };
}

describe.skipIf(!clusterAvailable())('webhooks on 3 instances and Redis', () => {
  let cluster: Cluster;
  let peer: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    peer = await receiver();
    cluster = await startCluster({ instances: 3, script: EXAMPLE, env: { EVENTS_ALLOW_LOOPBACK: '1' } });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    await peer?.close();
  });

  it('a subscription outlives the instance that made it, and each occurrence is delivered once', async () => {
    const [first, second, third] = cluster.members as [any, any, any];
    const subscribed = await call(first.url, 'alice', 'events/subscribe', {
      name: 'incident.created', arguments: { service: 'db' }, delivery: { mode: 'webhook', url: peer.url, secret: SECRET }, cursor: null,
    });
    expect(subscribed.result).toMatchObject({ id: expect.stringMatching(/^sub_/), truncated: false });
    await first.kill();
    const raised: string[] = [];
    for (const member of [second, third, second, third]) {
      const answer = await call(member.url, 'bob', 'tools/call', { name: 'raise_incident', arguments: { service: 'db', severity: 'high' } });
      raised.push(answer.result.structuredContent.eventId);
    }
    for (let waited = 0; peer.deliveries.length < raised.length && waited < 15_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1_500)); // time for a duplicate to show up, if any instance sent one
    expect(peer.deliveries.map((d) => d.eventId).sort()).toEqual([...raised].sort());
    expect(peer.deliveries.every((d) => d.id === d.eventId)).toBe(true); // webhook-id is the eventId
    expect(peer.rejected).toEqual(raised.map(() => 'tampered'));
  }, 40_000);
});
