/**
 * The Redis bus on a real redis-server: a request that raised a change answers once Redis has the
 * change, and a Redis that stops answering (SIGSTOP) holds that answer back only for the bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { redisState, type RedisState } from '../../src/redis/index.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';

const available = clusterAvailable();

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.skipIf(!available || process.env.REDIS_URL !== undefined)('Redis bus', () => {
  let redis: Redis;
  let state: RedisState;

  beforeAll(async () => {
    redis = await startRedis();
    state = await redisState({ url: redis.url, prefix: `bus${process.pid}:`, onError: () => {} });
  }, 60_000);
  afterAll(async () => {
    if (redis?.pid) process.kill(redis.pid, 'SIGCONT');
    await state?.close();
    await redis?.stop();
  });

  it('a request that raised a change answers once Redis acknowledged it: a Redis that stops answering (SIGSTOP) holds the answer for the bound, ~2 s, no longer', async () => {
    const mcp = new MiniMCP({ name: 'bus', version: '1', state, requestState: { secret: 'a-shared-secret-of-at-least-32-bytes!!' } });
    mcp.tool('touch', {}, () => (mcp.notifyResourceUpdated('mem://a'), 'touched'));
    const heard: string[] = [];
    mcp.bus.subscribe((event) => event.type === 'resources/updated' && heard.push(event.uri));
    const call = async () => ((await mcp.dispatch({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'touch' } })).reply as any).result.content[0].text;

    expect(await call()).toBe('touched');
    await until(() => heard.length === 1); // delivered back through Redis

    process.kill(redis.pid!, 'SIGSTOP');
    try {
      const t0 = performance.now();
      expect(await call()).toBe('touched');
      const waited = performance.now() - t0;
      expect(waited).toBeGreaterThanOrEqual(1_900); // held while Redis had not acknowledged it...
      expect(waited).toBeLessThan(10_000); // ...and answered after the bound, never left hanging
    } finally {
      process.kill(redis.pid!, 'SIGCONT');
    }
    await until(() => heard.length === 2); // the held publish goes through once Redis runs again
  }, 30_000);
});
