/**
 * The Events log on a real redis-server (Redis Streams): retention in count and age, `truncated` for a
 * cursor behind what was trimmed (count or age), cursors shared by two servers on one Redis.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiniMCP } from '../../src/index.js';
import { type RedisState } from '../../src/redis/index.js';
import { clusterAvailable } from './support/cluster.js';
import { redisStates } from './support/redis-states.js';

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const secret = randomBytes(32).toString('base64url');

describe.skipIf(!clusterAvailable())('RedisEventLog', () => {
  const { states } = redisStates('evlog');

  function server(state: RedisState) {
    const mcp = new MiniMCP({ name: 'r', version: '1', state, requestState: { secret }, onError: () => {} });
    const ticks = mcp.event('tick', { description: 'ticks', payload: z.object({ n: z.number() }), replay: { maxEvents: 3, maxAgeMs: 60_000 } });
    const poll = async (cursor: string | null) => ((await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'events/poll', params: { name: 'tick', cursor, _meta: meta } })) as any).result;
    return { ticks, poll };
  }

  it('shares cursors across servers, and a cursor behind the trimmed events is truncated', async () => {
    const a = server(states[0]!);
    const b = server(states[1]!);
    const start = await a.poll(null);
    await a.ticks.emit({ n: 1 });
    await b.ticks.emit({ n: 2 });
    const both = await b.poll(start.cursor);
    expect(both.events.map((e: any) => e.data.n)).toEqual([1, 2]);
    expect(both.truncated).toBe(false);
    for (let n = 3; n <= 6; n++) await a.ticks.emit({ n });
    const late = await b.poll(both.cursor);
    expect(late.truncated).toBe(true);
    expect(late.events.map((e: any) => e.data.n)).toEqual([4, 5, 6]);
    const current = await a.poll(late.cursor);
    expect(current).toMatchObject({ events: [], truncated: false });
  });

  it('the age bound trims too, and is reported as truncated', async () => {
    const mcp = new MiniMCP({ name: 'r', version: '1', state: states[0]!, requestState: { secret }, onError: () => {} });
    const aged = mcp.event('aged', { description: 'short-lived', payload: z.object({ n: z.number() }), replay: { maxEvents: 100, maxAgeMs: 1_000 } });
    const poll = async (cursor: string | null) => ((await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'events/poll', params: { name: 'aged', cursor, _meta: meta } })) as any).result;
    const start = await poll(null);
    await aged.emit({ n: 1 });
    await new Promise((r) => setTimeout(r, 1_200));
    await aged.emit({ n: 2 });
    const late = await poll(start.cursor);
    expect(late.truncated).toBe(true);
    expect(late.events.map((e: any) => e.data.n)).toEqual([2]);
  });
});
