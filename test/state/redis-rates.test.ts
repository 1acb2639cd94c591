/**
 * Rate limits on a real redis-server: two instances (two states, two servers) share one budget per
 * principal, the bucket's key expires once it would be full again, and a Redis outage lets requests
 * through instead of refusing everyone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { redisState, type RedisState } from '../../src/redis/index.js';
import { createNodeHandler } from '../../src/transports/http/node.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';

const available = clusterAvailable();
const SECRET = 'a-secret-of-at-least-thirty-two-bytes!!';

describe.skipIf(!available)('Redis rate limits', () => {
  let redis: Redis;
  const states: RedisState[] = [];
  const servers: Server[] = [];
  const prefix = `rl${process.pid}:`;
  const ports: number[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i++) {
      const state = await redisState({ url: redis.url, prefix, onError: () => {} });
      states.push(state);
      const mcp = new MiniMCP<{ principal: string }>({
        name: `member-${i}`, version: '1', state, requestState: { secret: SECRET }, onError: () => {},
        rateLimit: { requestsPerSecond: 1, requestBurst: 4 },
      });
      const http = createServer(createNodeHandler(mcp, { scope: (req) => ({ principal: String(req.headers['x-user']) }) }));
      servers.push(http);
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
      ports.push((http.address() as AddressInfo).port);
    }
  }, 30_000);
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    for (const state of states) await state.close();
    await redis?.stop();
  });

  const ping = async (port: number, user: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-user': user },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await response.text();
    return { status: response.status, retryAfter: response.headers.get('retry-after') };
  };

  it('two instances share one budget per principal: its burst spent on both, the next is refused on either', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await ping(ports[i % 2]!, 'bob')).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    // Asked together: a refusal is held for its Retry-After, by when one request's worth has come back.
    const [a, b] = await Promise.all([ping(ports[0]!, 'bob'), ping(ports[1]!, 'bob')]);
    expect([a.status, b.status]).toEqual([429, 429]);
    expect(a.retryAfter).toBe('1');
    expect((await ping(ports[1]!, 'alice')).status).toBe(200); // another principal's budget is its own
  });

  it('keys the bucket by principal and lets it expire once it would be full again', async () => {
    const client = (await import('redis')).createClient({ url: redis.url });
    await client.connect();
    try {
      await ping(ports[0]!, 'carol');
      const ttl = await client.pTTL(`${prefix}rate:carol`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1_001); // one request back at 1 per second
      expect(await client.hGetAll(`${prefix}rate:carol`)).toMatchObject({ r: '3.0000' });
    } finally {
      await client.quit();
    }
  });

  it('a Redis outage lets requests through instead of refusing everyone, counted as failures', async () => {
    const before = states[0]!.stats.failures;
    await redis.stop();
    try {
      for (let i = 0; i < 6; i++) expect((await ping(ports[0]!, 'dave')).status).not.toBe(429);
      expect(states[0]!.stats.failures).toBeGreaterThan(before);
    } finally {
      await redis.restart?.();
    }
  }, 30_000);
});
