/**
 * Issue 24, the reliability defect: a 2025 client whose SSE response drops reconnects at once with
 * Last-Event-ID to ANOTHER instance. Before the fix it got 404 "no resumable stream for this
 * Last-Event-ID and session" (or a GET that ended without the result) whenever the GET overtook the
 * first instance noticing the drop, or the handler finished on a connection that was already gone.
 * Now the stream's events are in the shared store before the client can hold their ids. Two MiniMCP
 * instances in this process, each on its own port, sharing a memory state object or a Redis; the
 * stream is dropped and resumed on the other instance with no delay, 20 times in a row, with the
 * handler's pause between events varied so the drop lands before, during and after its last events.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState, type RedisState } from '../../src/redis/index.js';
import { EventStore, resolveState, type SharedState } from '../../src/state/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';
import { events, get, initialize, messages, post, request, sseReader } from './support/http.js';
import { createStateServer } from './support/server.js';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const ROUNDS = 20;
/** The handler's pause between its events, per round: the drop races the handler differently each time. */
const PAUSES = [0, 1, 3, 10, 30];

async function twoInstances(state: () => Promise<Partial<SharedState>>): Promise<RunningServer[]> {
  const servers: RunningServer[] = [];
  for (let i = 0; i < 2; i++) {
    const { mcp } = createStateServer({ state: await state(), requestState: { secret: SECRET } });
    servers.push(await serve(mcp, { port: 0 }));
  }
  return servers;
}

/** One round: the stream on `a`, the client drops it after progress 1, and resumes on `b` at once. */
async function dropAndResume(a: string, b: string, session: Record<string, string>, round: number): Promise<unknown[]> {
  const client = new AbortController();
  const pauseMs = PAUSES[round % PAUSES.length]!;
  const response = await post(a, request('tools/call', { name: 'steps', arguments: { pauseMs }, _meta: { progressToken: 's' } }, `r${round}`), session, client.signal);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const text = await sseReader(response).until((t) => t.includes('"progress":1'));
  const lastId = events(text).find((e) => e.data.includes('"progress":1'))!.id!;
  client.abort();
  const resumed = await get(b, { ...session, 'last-event-id': lastId });
  expect(resumed.status, `round ${round} (pause ${pauseMs} ms)`).toBe(200);
  return messages(await resumed.text());
}

function suite(name: string, state: () => Promise<Partial<SharedState>>, skip = false, cleanup: () => Promise<void> = async () => {}) {
  describe.skipIf(skip)(`resume on another instance at once (${name})`, () => {
    let servers: RunningServer[] = [];
    beforeAll(async () => {
      servers = await twoInstances(state);
    }, 60_000);
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.close()));
      await cleanup();
    });

    it(`${ROUNDS} rounds in a row: the GET replays what the client missed and follows the stream to its result`, async () => {
      const [a, b] = servers.map((s) => s.url) as [string, string];
      const session = await initialize(a);
      for (let round = 0; round < ROUNDS; round++) {
        const [from, to] = round % 2 === 0 ? [a, b] : [b, a];
        const rest = await dropAndResume(from, to, session, round);
        expect(rest.map((m: any) => m.method ?? 'result'), `round ${round}`).toEqual(['notifications/progress', 'result']);
        expect(rest[0]).toMatchObject({ params: { progress: 2 } });
        expect(rest[1]).toMatchObject({ id: `r${round}`, result: { content: [{ text: 'all steps done' }] } });
      }
    }, 60_000);
  });
}

const shared = resolveState();
suite('memory state shared in one process', async () => shared);

const available = clusterAvailable();
let redis: Redis | undefined;
const states: RedisState[] = [];
suite('Redis', async () => {
  redis ??= await startRedis();
  const state = await redisState({ url: redis.url, prefix: `re${process.pid}:`, onError: () => {} });
  states.push(state);
  return state;
}, !available, async () => {
  await Promise.all(states.map((s) => s.close()));
  await redis?.stop();
});

// Pauses every writer on its Redis (CLIENT PAUSE): only on a Redis of its own, not a shared REDIS_URL.
describe.skipIf(!available || process.env.REDIS_URL !== undefined)('a Redis slow to store a new stream', () => {
  it('the client sees no event id before Redis has the stream: a resume on the other instance at once finds it', async () => {
    const own = await startRedis();
    const raw = createClient({ url: own.url });
    const pair: RedisState[] = [];
    let servers: RunningServer[] = [];
    try {
      await raw.connect();
      servers = await twoInstances(async () => (pair[pair.length] = await redisState({ url: own.url, prefix: `slow${process.pid}:`, onError: () => {} })));
      const [a, b] = servers.map((s) => s.url) as [string, string];
      const session = await initialize(a);
      for (let round = 0; round < 3; round++) {
        // Writes wait 300 ms, reads do not: the stream's owner reaches Redis late, the resume's lookup at once.
        await raw.sendCommand(['CLIENT', 'PAUSE', '300', 'WRITE']);
        const client = new AbortController();
        const response = await post(a, request('tools/call', { name: 'steps', arguments: { pauseMs: 600 }, _meta: { progressToken: 's' } }, `p${round}`), session, client.signal);
        const text = await sseReader(response).until((t) => t.includes('"progress":1'));
        const lastId = events(text).find((e) => e.data.includes('"progress":1'))!.id!;
        client.abort();
        const resumed = await get(b, { ...session, 'last-event-id': lastId });
        expect(resumed.status, `round ${round}`).toBe(200);
        expect(messages(await resumed.text()).map((m: any) => m.method ?? m.result?.content[0].text)).toEqual(['notifications/progress', 'all steps done']);
      }
    } finally {
      await Promise.all(servers.map((s) => s.close()));
      await Promise.all(pair.map((s) => s.close()));
      await raw.close().catch(() => {});
      await own.stop();
    }
  }, 30_000);
});

describe('the memory store keeps running streams over finished ones', () => {
  it('churned far past its bound with a running stream first, it keeps that one and the newest finished ones, oldest dropped first', () => {
    const store = new EventStore({ maxStreams: 10, maxStreamsPerPrincipal: 10 });
    store.open('running', 'o', 1, 'p').push('r1');
    for (let i = 0; i < 5_000; i++) {
      const stream = store.open(`s${i}`, 'o', 1, i % 2 === 0 ? 'p' : '');
      stream.push(`e${i}`);
      stream.end();
    }
    expect(store.size).toBe(10);
    expect(store.find('running-0', 'o')?.stream.after(0)).toEqual(['r1']);
    // p's newest finished streams stay: each open past the bound dropped the opener's own oldest finished one.
    const kept = Array.from({ length: 5_000 }, (_, i) => `s${i}`).filter((id) => store.find(`${id}-0`, 'o') !== undefined);
    expect(kept).toHaveLength(9);
    expect(kept.every((id) => Number(id.slice(1)) >= 4_980)).toBe(true);
  });

  it('an id opened twice: the newer stream replaces the older, which no longer counts against its principal', () => {
    const store = new EventStore({ maxStreams: 10, maxStreamsPerPrincipal: 2 });
    store.open('same', 'o', 1, 'p').push('old');
    store.open('same', 'o', 1, 'p').push('new');
    expect(store.size).toBe(1);
    expect(store.find('same-0', 'o')?.stream.after(0)).toEqual(['new']);
    store.open('other', 'o', 1, 'p'); // p holds 2: 'same' once, and this one
    expect(store.find('same-0', 'o')).toBeDefined();
  });

  it('a finished stream stays for the TTL, or for a shorter keepMs (one that finished on a response still open)', async () => {
    const store = new EventStore({ ttlMs: 30_000 });
    store.open('kept', 'o', 1).end();
    store.open('short', 'o', 1).end(5);
    await new Promise((r) => setTimeout(r, 30));
    expect(store.find('kept-0', 'o')).toBeDefined();
    expect(store.find('short-0', 'o')).toBeUndefined();
  });

  it('full, it drops the opener\'s own oldest finished stream first, a running one only when it has none finished, never another principal\'s', () => {
    const store = new EventStore({ maxStreams: 3, maxStreamsPerPrincipal: 2 });
    const running = store.open('a', 'o', 1, 'p');
    running.push('a1');
    store.open('b', 'o', 1, 'q');
    store.open('c', 'o', 1, 'q').end();
    store.open('d', 'o', 1, 'q'); // full: q's finished 'c' goes, not its older running 'b', never p's 'a'
    expect(store.find('c-0', 'o')).toBeUndefined();
    expect(store.find('b-0', 'o')).toBeDefined();
    expect(store.find('a-0', 'o')?.stream.after(0)).toEqual(['a1']);
    const stranger = store.open('e', 'o', 1, 'r'); // full, and r keeps nothing here: its stream is not kept
    expect(stranger.dropped).toBe(true);
    expect(store.size).toBe(3);
    expect(running.dropped).toBe(false);
    const mine = new EventStore({ maxStreams: 10, maxStreamsPerPrincipal: 2 });
    mine.open('m1', 'o', 1, 'p');
    mine.open('m2', 'o', 1, 'p').end();
    mine.open('m3', 'o', 1, 'p'); // p's share: its finished 'm2' goes, its older running 'm1' stays
    expect([mine.find('m1-0', 'o'), mine.find('m2-0', 'o'), mine.find('m3-0', 'o')].map((f) => f !== undefined)).toEqual([true, false, true]);
  });
});
