/**
 * The Redis ReplayStore on a real redis-server: the per-principal bound the memory store has, and a
 * stream kept from its first event (a resume that overtakes the disconnect follows it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState, type RedisState } from '../../src/redis/index.js';
import type { ReplayCursor, StreamReader } from '../../src/state/index.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';

const available = clusterAvailable();

describe.skipIf(!available)('Redis replay store', () => {
  let redis: Redis;
  let state: RedisState;

  beforeAll(async () => {
    redis = await startRedis();
    state = await redisState({ url: redis.url, prefix: `rp${process.pid}:`, maxStreamsPerPrincipal: 3, onError: () => {} });
  }, 60_000);
  afterAll(async () => {
    await state?.close();
    await redis?.stop();
  });

  const resume = (id: string, owner: string) => state.replay.resume(id, owner) as Promise<ReplayCursor | undefined>;
  /** A reader that collects what it is handed; `ended` resolves when the stream ends. */
  const reader = () => {
    const got: string[] = [];
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const r: StreamReader = { write: (text) => got.push(text), end: () => end() };
    return { got, ended, r };
  };

  it("keeps at most maxStreamsPerPrincipal streams per named principal, dropping that principal's oldest; others are untouched", async () => {
    const ids = ['p1', 'p2', 'p3', 'p4', 'p5'].map((n) => `${n}-${Date.now()}`);
    const other = `q-${Date.now()}`;
    const anonymous = Array.from({ length: 5 }, (_, i) => `anon${i}-${Date.now()}`);
    state.replay.open(other, 'o-q', 1, 'bob').push('q1');
    for (const id of anonymous) state.replay.open(id, 'o-anon', 1, '').push('a1');
    const follower = reader();
    for (const [i, id] of ids.entries()) {
      state.replay.open(id, 'o-alice', 1, 'alice').push(`frame ${i}`);
      if (i === 0) {
        const cursor = (await resume(`${id}-0`, 'o-alice'))!; // a GET following the first
        expect(cursor.missed).toEqual(['frame 0']);
        cursor.follow(follower.r);
      }
      await new Promise((r) => setTimeout(r, 2)); // distinct open times
    }
    // The two oldest of alice's five are gone; the newest three resume.
    expect(await resume(`${ids[0]}-0`, 'o-alice')).toBeUndefined();
    expect(await resume(`${ids[1]}-0`, 'o-alice')).toBeUndefined();
    for (const [i, id] of ids.entries()) {
      if (i < 2) continue;
      expect((await resume(`${id}-0`, 'o-alice'))?.missed).toEqual([`frame ${i}`]);
    }
    await follower.ended; // the GET following a dropped stream ends, it does not hang
    expect(follower.got).toEqual([]);
    // Another principal's stream and anonymous ones (only the total bounds them) are untouched.
    expect((await resume(`${other}-0`, 'o-q'))?.missed).toEqual(['q1']);
    for (const id of anonymous) expect((await resume(`${id}-0`, 'o-anon'))?.missed).toEqual(['a1']);
    // A dropped stream stays dropped: its running request's later events are not kept.
    state.replay.open(ids[4]!, 'o-alice', 2, 'alice');
    expect(await resume(`${ids[0]}-0`, 'o-alice')).toBeUndefined();
  });

  it('a stream kept from its first event resumes at once: the GET replays what is kept, follows the rest, ends with it', async () => {
    const id = `live-${Date.now()}`;
    const writer = state.replay.open(id, 'o-1', 1, 'carol'); // the response began
    writer.push('one');
    expect(await resume(`${id}-1`, 'o-2')).toBeUndefined(); // someone else's
    const cursor = (await resume(`${id}-0`, 'o-1'))!;
    expect(cursor).toMatchObject({ missed: ['one'], done: false });
    const follower = reader();
    cursor.follow(follower.r);
    await new Promise((r) => setTimeout(r, 50)); // the follower subscribes meanwhile
    writer.push('two');
    writer.push('three');
    writer.end();
    await follower.ended;
    expect(follower.got).toEqual(['two', 'three']);
    expect(await resume(`${id}-3`, 'o-1')).toMatchObject({ missed: [], done: true });
  });
});
