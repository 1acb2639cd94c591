/**
 * Three instances as separate processes on a real Redis, behind real nginx with round-robin, no
 * affinity and no retry (issue 15, item 3): they behave as one server in both eras.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { redisState } from '../../src/redis/index.js';
import { clusterAvailable, startMember, startNginx, startRedis, type Balancer, type Member, type Redis } from './support/cluster.js';
import { events, get, initialize, messages, post, request, resultOf, sleep, sseReader } from './support/http.js';

const available = clusterAvailable();
const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';

describe.skipIf(!available)('cluster: 3 instances, Redis, nginx round-robin', () => {
  let redis: Redis;
  let members: Member[] = [];
  let lb: Balancer;
  const prefix = `t${process.pid}:`;

  beforeAll(async () => {
    redis = await startRedis();
    const env = { REDIS_URL: redis.url, MINIMCP_SECRET: SECRET, MINIMCP_REDIS_PREFIX: prefix };
    members = await Promise.all([startMember(env), startMember(env), startMember(env)]);
    lb = await startNginx(members.map((m) => new URL(m.url).host));
  }, 120_000);
  afterAll(async () => {
    await lb?.stop();
    await Promise.all(members.map((m) => m.stop()));
    await redis?.stop();
  });

  /** Which instance answered the next request through the balancer. */
  const pid = async (headers: Record<string, string> = {}) => (await resultOf(await post(lb.url, request('tools/call', { name: 'pid', arguments: {} }), headers))).content[0].text;

  it('round-robins over all three (no affinity)', async () => {
    const session = await initialize(lb.url);
    const pids = new Set<string>();
    for (let i = 0; i < 6; i++) pids.add(await pid(session));
    expect(pids).toEqual(new Set(members.map((m) => String(m.pid))));
  });

  it('fan-out: changes raised on every instance reach a 2025 GET stream and 2026 listen streams exactly once, in order', async () => {
    const session = await initialize(lb.url);
    const getStream = sseReader(await get(lb.url, session));
    const listens = await Promise.all([0, 1, 2].map(async (i) => {
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      const response = await post(lb.url, request('subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['mem://a'] }, _meta: meta }, `listen-${i}`),
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' });
      const reader = sseReader(response);
      await reader.until((t) => t.includes('acknowledged'));
      return reader;
    }));
    await resultOf(await post(lb.url, request('resources/subscribe', { uri: 'mem://a' }), session));
    for (let i = 0; i < 6; i++) {
      await resultOf(await post(lb.url, request('tools/call', { name: 'touch', arguments: { uris: ['mem://b', 'mem://a'] } }), session));
    }
    await resultOf(await post(lb.url, request('tools/call', { name: 'add-tool', arguments: { name: `t-${Date.now()}` } }), session));
    const expected = [...Array(6).fill('notifications/resources/updated mem://a'), 'notifications/tools/list_changed'];
    const seen = (text: string) => messages(text).filter((m) => m.method !== 'notifications/subscriptions/acknowledged').map((m) => `${m.method} ${m.params?.uri ?? ''}`.trim());
    const getText = await getStream.until((t) => t.includes('list_changed'));
    await sleep(200); // a duplicate would arrive meanwhile
    expect(seen(getStream.state.text)).toEqual(expected);
    expect(seen(getText)).toEqual(expected);
    for (const listen of listens) {
      await listen.until((t) => t.includes('list_changed'));
      expect(seen(listen.state.text)).toEqual(expected);
      await listen.cancel();
    }
    await getStream.cancel();
  });

  it('2025 GET stream: one per session across instances (409 for a second on any instance)', async () => {
    const session = await initialize(lb.url);
    const first = await get(lb.url, session);
    expect(first.status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get(lb.url, session)).status).toBe(409);
    await first.body!.cancel();
  });

  it('2025 logging/setLevel and resources/subscribe hold on every instance', async () => {
    const session = await initialize(lb.url);
    await resultOf(await post(lb.url, request('logging/setLevel', { level: 'warning' }), session));
    for (let i = 0; i < 3; i++) {
      const text = await (await post(lb.url, request('tools/call', { name: 'logs', arguments: {}, _meta: { progressToken: i } }), session)).text();
      expect(messages(text).filter((m) => m.method === 'notifications/message').map((m) => m.params.level)).toEqual(['warning']);
    }
  });

  it('a 2025 stream dropped by its client resumes with Last-Event-ID on another instance', async () => {
    const session = await initialize(lb.url);
    const client = new AbortController();
    const response = await post(lb.url, request('tools/call', { name: 'steps', arguments: { pauseMs: 200 }, _meta: { progressToken: 's' } }, 'steps-c'), session, client.signal);
    const text = await sseReader(response).until((t) => t.includes('"progress":1'));
    const lastId = events(text.replace(/^data:$/m, 'data: {}')).map((e) => e.id).filter(Boolean).at(-1)!;
    client.abort();
    // A client resumes after the stream's `retry:` delay (SEP-1699), not at once: the instance that ran the
    // stream needs a moment to see the disconnect and hand its events to Redis.
    const retryMs = Number(/^retry: (\d+)$/m.exec(text)?.[1] ?? 1000);
    await new Promise((resolve) => setTimeout(resolve, retryMs));
    const resumed = await get(lb.url, { ...session, 'last-event-id': lastId });
    expect(resumed.status).toBe(200);
    const rest = messages(await resumed.text());
    expect(rest.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'result']);
    expect(rest[1]).toMatchObject({ id: 'steps-c', result: { content: [{ text: 'all steps done' }] } });
  });

  it('notifications/cancelled reaches the instance running the request', async () => {
    const session = await initialize(lb.url);
    const response = await post(lb.url, request('tools/call', { name: 'wait', arguments: { tag: 'c1' }, _meta: { progressToken: 'w' } }, 'wait-1'), session);
    const reader = sseReader(response);
    await reader.until((t) => t.includes('progress'));
    await post(lb.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'wait-1', reason: 'test' } }, session);
    await reader.until(() => reader.state.done, 5000).catch(() => {});
    const text = reader.state.done ? reader.state.text : await reader.until(() => false, 3000).catch((e: Error) => e.message);
    expect(reader.state.done).toBe(true);
    expect(messages(String(text)).some((m) => m.id === 'wait-1')).toBe(false); // a cancelled request gets no answer
  });

  it('SDK v1 (2025): elicitation answers POSTed to any instance reach the waiting handler', async () => {
    const client = new ClientV1({ name: 'v1', version: '1' }, { capabilities: { elicitation: {} } });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: `Ada${++asked}` } }));
    await client.connect(new TransportV1(new URL(lb.url)));
    const runners = new Set<string>();
    for (let i = 1; i <= 4; i++) {
      const result = await client.callTool({ name: 'ask', arguments: {} }, undefined, { timeout: 10_000 });
      const text = (result.content as { text: string }[])[0]!.text;
      expect(text).toMatch(new RegExp(`^hello Ada${i} \\(accept\\) from \\d+$`));
      runners.add(text.split(' ').at(-1)!);
    }
    expect(runners.size).toBeGreaterThan(1);
    await client.close();
  });

  it('client v2 (2026): MRTR requestState sealed on one instance opens on another', async () => {
    const client = new ClientV2({ name: 'v2', version: '2' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'auto' } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }));
    await client.connect(new TransportV2(new URL(lb.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    for (let i = 0; i < 3; i++) {
      const result = await client.callTool({ name: 'ask', arguments: {} });
      expect((result.content as { text: string }[])[0]!.text).toMatch(/^hello Grace \(accept\)/);
    }
    await client.close();
  });

  it('shared state without a shared secret is refused at construction', async () => {
    const state = await redisState({ url: redis.url, prefix });
    try {
      expect(() => new MiniMCP({ name: 'x', version: '1', state })).toThrow(/requestState\.secret/);
    } finally {
      await state.close();
    }
  });

  it('an unreachable Redis at start is a clear error', async () => {
    await expect(redisState({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 1000 })).rejects.toThrow(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
  });

  // Last: it stops Redis under the running cluster.
  it.skipIf(process.env.REDIS_URL !== undefined)('Redis lost mid-run: stateless requests go on, session requests get a prompt -32603, then it reconnects by itself', async () => {
    const session = await initialize(lb.url);
    const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'pid' };
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const stateless = () => post(lb.url, request('tools/call', { name: 'pid', arguments: {}, _meta: meta }), modern, AbortSignal.timeout(5000));
    await redis.stop();
    for (let i = 0; i < 3; i++) {
      expect((await resultOf(await stateless())).content[0].text).toMatch(/^\d+$/);
      const body = await (await post(lb.url, request('tools/call', { name: 'pid', arguments: {} }), session, AbortSignal.timeout(5000))).json();
      expect(body.error).toMatchObject({ code: -32603 });
    }
    await redis.restart!();
    const deadline = Date.now() + 15_000;
    let served = 0;
    while (served < 3 && Date.now() < deadline) {
      const response = await post(lb.url, request('tools/call', { name: 'pid', arguments: {} }), session, AbortSignal.timeout(5000));
      served = (await response.text()).includes('"result"') ? served + 1 : 0;
      if (served === 0) await sleep(200);
    }
    expect(served).toBe(3); // all three instances reconnected
  });
});

