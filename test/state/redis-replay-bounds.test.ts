/**
 * Issue 24, finding 4 on Redis (the memory variant: test/security/replay.test.ts): an event larger
 * than `maxCharsPerStream` is never kept (a reply becomes a short error reply), a stream keeps at
 * most that many characters, and one principal's streams at most `maxCharsPerPrincipal` (its own
 * oldest streams go first); another principal's stream is untouched.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState, type RedisState } from '../../src/redis/index.js';
import type { ReplayCursor } from '../../src/state/index.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';
import { sleep } from './support/http.js';

const available = clusterAvailable();
const note = (stream: string, n: number, chars: number) =>
  `id: ${stream}-${n}\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(chars) } })}\n\n`;
const reply = (stream: string, n: number, chars: number) =>
  `id: ${stream}-${n}\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 3, result: { text: 'x'.repeat(chars) } })}\n\n`;

describe.skipIf(!available)('Redis replay byte bounds (real redis-server)', () => {
  let redis: Redis;
  let state: RedisState;
  let raw: ReturnType<typeof createClient>;
  const prefix = `rrb${process.pid}:`;

  beforeAll(async () => {
    redis = await startRedis();
    state = await redisState({ url: redis.url, prefix, maxCharsPerStream: 10_000, maxCharsPerPrincipal: 30_000, onError: () => {} });
    raw = createClient({ url: redis.url });
    await raw.connect();
  }, 60_000);
  afterAll(async () => {
    await raw?.close();
    await state?.close();
    await redis?.stop();
  });

  const resume = (id: string, owner: string) => state.replay.resume(id, owner) as Promise<ReplayCursor | undefined>;
  const listChars = async (stream: string) => (await raw.lRange(`${prefix}rp:${stream}`, 0, -1)).reduce((n, e) => n + e.length, 0);

  it('an event larger than the stream bound is never kept: a reply becomes a short error reply', async () => {
    const writer = state.replay.open('big', 'o', 1, 'mallory');
    writer.push(note('big', 1, 50_000));
    writer.push(reply('big', 2, 50_000));
    await sleep(50);
    const found = await resume('big-0', 'o');
    expect(found!.missed[0]).toBe('');
    expect(JSON.parse(found!.missed[1]!.slice(found!.missed[1]!.indexOf('data: ') + 6))).toMatchObject({ id: 3, error: { code: -32603, data: { bound: 'maxChars' } } });
    expect(await listChars('big')).toBeLessThan(1_000);
  });

  it('a stream keeps at most maxCharsPerStream, oldest events first', async () => {
    const writer = state.replay.open('many', 'o', 1, '');
    for (let n = 1; n <= 10; n++) writer.push(note('many', n, 2_000));
    await sleep(50);
    expect(await listChars('many')).toBeLessThanOrEqual(10_000);
    const found = await resume('many-0', 'o');
    expect(found!.missed.at(-1)).toContain('id: many-10');
  });

  it('one principal\'s streams keep at most maxCharsPerPrincipal, its own oldest going first; another principal is untouched', async () => {
    const bob = state.replay.open('bob', 'b', 1, 'bob');
    bob.push(note('bob', 1, 8_000));
    for (let i = 0; i < 8; i++) {
      const writer = state.replay.open(`m${i}`, 'm', 1, 'mallory');
      writer.push(note(`m${i}`, 1, 8_000));
    }
    await sleep(100);
    let mallory = 0;
    for (let i = 0; i < 8; i++) mallory += await listChars(`m${i}`);
    mallory += await listChars('big');
    expect(mallory).toBeLessThanOrEqual(30_000);
    expect(await resume('m0-0', 'm')).toBeUndefined(); // her oldest went
    expect((await resume('m7-0', 'm'))!.missed).toHaveLength(1);
    expect((await resume('bob-0', 'b'))!.missed).toHaveLength(1);
  });

  it('all streams keep at most maxTotalReplayChars: the writer sheds its own, never another principal\'s; a finished stream gives its share back when it expires', async () => {
    const other = await redisState({ url: redis.url, prefix: `${prefix}t:`, maxTotalReplayChars: 20_000, replayTtlMs: 100, onError: () => {} });
    try {
      const alice = other.replay.open('alice', 'a', 1, 'alice');
      alice.push(note('alice', 1, 8_000));
      const anonymous = other.replay.open('anon', 'x', 1, '');
      for (let n = 1; n <= 5; n++) anonymous.push(note('anon', n, 5_000));
      await sleep(100);
      const total = Number(await raw.hGet(`${prefix}t:rp-ledger`, 'size'));
      expect(total).toBeLessThanOrEqual(20_000);
      expect(((await other.replay.resume('alice-0', 'a')) as ReplayCursor).missed).toHaveLength(1);
      alice.end();
      await sleep(150); // alice's finished stream expired
      anonymous.push(note('anon', 6, 5_000));
      await sleep(50);
      expect(Number(await raw.hGet(`${prefix}t:rp-ledger`, 'size'))).toBeLessThanOrEqual(total - 8_000 + 5_100);
      expect(((await other.replay.resume('anon-0', 'x')) as ReplayCursor).missed.length).toBeGreaterThanOrEqual(2);
    } finally {
      await other.close();
    }
  });

  it('a stream kept alive past streamMaxIdleMs from its opening still counts against its principal (it used to leave the count: one stream more)', async () => {
    const idle = await redisState({ url: redis.url, prefix: `${prefix}idle:`, streamMaxIdleMs: 300, maxStreamsPerPrincipal: 2, onError: () => {} });
    try {
      const long = idle.replay.open('long', 'a', 1, 'alice');
      for (let n = 1; n <= 4; n++) {
        long.push(note('long', n, 10)); // each event keeps it 300 ms more
        await sleep(100);
      }
      await idle.replay.open('second', 'a', 1, 'alice').opened;
      await idle.replay.open('third', 'a', 1, 'alice').opened;
      expect(await idle.replay.resume('long-0', 'a')).toBeUndefined(); // alice's oldest went: two streams are her share
      expect(await idle.replay.resume('second-0', 'a')).toBeDefined();
      expect(await idle.replay.resume('third-0', 'a')).toBeDefined();
    } finally {
      await idle.close();
    }
  });

  it('the ledger gives a principal\'s streams back when their keys expire, and forgets it at zero', async () => {
    const ledger = `${prefix}zero:rp-ledger`;
    const zero = await redisState({ url: redis.url, prefix: `${prefix}zero:`, replayTtlMs: 50, onError: () => {} });
    try {
      for (const [id, who] of [['z1', 'alice'], ['z2', 'alice'], ['z3', '']] as const) {
        const writer = zero.replay.open(id, 'o', 1, who);
        writer.push(note(id, 1, 100));
        writer.end();
      }
      await sleep(20);
      expect(await raw.hGetAll(`${ledger}:alice`)).toMatchObject({ count: '2' });
      expect(await raw.hGet(ledger, 'count')).toBe('3');
      await sleep(100); // all three expired
      await zero.replay.open('z4', 'o', 1, 'bob').opened; // the next write sweeps them
      expect(await raw.exists([`${ledger}:alice`, `${prefix}zero:rp-open:5:alice`])).toBe(0);
      expect(await raw.hGetAll(ledger)).toEqual({ count: '1', size: '0' });
      expect(await raw.hGetAll(`${ledger}:bob`)).toEqual({ count: '1' });
    } finally {
      await zero.close();
    }
  });

  it('a write past maxTotalReplayChars sweeps every expired stream first, not one batch of 100 (it used to shed its own events for streams already gone)', async () => {
    const wide = await redisState({ url: redis.url, prefix: `${prefix}wide:`, maxTotalReplayChars: 41_000, replayTtlMs: 100, onError: () => {} });
    try {
      for (let i = 0; i < 400; i++) {
        const writer = wide.replay.open(`w${i}`, 'o', 1, '');
        writer.push('y'.repeat(100));
        writer.end();
      }
      await sleep(200); // all 400 (40,800 characters) expired
      const big = wide.replay.open('big', 'o', 1, '');
      big.push(note('big', 1, 29_800));
      await sleep(50);
      expect(((await wide.replay.resume('big-0', 'o')) as ReplayCursor).missed).toHaveLength(1);
      expect(Number(await raw.hGet(`${prefix}wide:rp-ledger`, 'size'))).toBeLessThanOrEqual(41_000);
    } finally {
      await wide.close();
    }
  });

  it('a push whose own stream the sweep just forgot (its expiry read on another clock) keeps nothing: the ledger stays even', async () => {
    const even = await redisState({ url: redis.url, prefix: `${prefix}even:`, onError: () => {} });
    try {
      const writer = even.replay.open('s', 'o', 1, 'alice');
      writer.push(note('s', 1, 10));
      await sleep(20);
      await raw.zAdd(`${prefix}even:rp-expiry`, { score: 0, value: 's' }); // as if an instance ahead in time had written it
      writer.push(note('s', 2, 10));
      await sleep(20);
      expect(await raw.hGetAll(`${prefix}even:rp-ledger`)).toEqual({ count: '0', size: '0' });
      expect(await raw.exists([`${prefix}even:rp-kept`, `${prefix}even:rp-ledger:alice`, `${prefix}even:rp:s`])).toBe(0);
    } finally {
      await even.close();
    }
  });
});
