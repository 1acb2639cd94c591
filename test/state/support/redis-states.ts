/** A real redis-server and a few MiniMCP states on it under one fresh prefix, for the enclosing describe block. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { redisState, type RedisState } from '../../../src/redis/index.js';
import { startRedis, type Redis } from './cluster.js';

export function redisStates(name: string, count = 2): { readonly states: RedisState[]; redis: Redis } {
  const shared = { states: [] as RedisState[], redis: undefined as unknown as Redis };
  beforeAll(async () => {
    shared.redis = await startRedis();
    const prefix = `${name}${randomBytes(3).toString('hex')}:`;
    for (let i = 0; i < count; i++) shared.states.push(await redisState({ url: shared.redis.url, prefix, onError: () => {} }));
  }, 30_000);
  afterAll(async () => {
    for (const state of shared.states) await state.close();
    await shared.redis?.stop();
  });
  return shared;
}
