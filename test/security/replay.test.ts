/**
 * Issue 24, finding 4: the resumable-stream store's "about 1 MiB per stream" did not hold, since the
 * newest event was always kept whatever its size (one principal held 827 MiB, anonymous callers
 * 3,161 MiB). Now an event larger than `maxChars` is never kept (a reply becomes a short error reply),
 * and characters are bounded per principal (`maxCharsPerPrincipal`) and in all (`maxTotalChars`):
 * past them the writer's own oldest streams, then events, go, never another principal's. The Redis
 * variant is test/state/redis-replay-bounds.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { EventStore } from '../../src/state/replay.js';

const reply = (stream: string, n: number, chars: number) =>
  `id: ${stream}-${n}\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'x'.repeat(chars) }] } })}\n\n`;
const note = (stream: string, n: number, chars: number) =>
  `id: ${stream}-${n}\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(chars) } })}\n\n`;

describe('the replay store keeps its byte bounds', () => {
  it('an event larger than maxChars (1 MiB) is never kept: a reply becomes a short error reply, a notification an empty frame', () => {
    const store = new EventStore();
    const stream = store.open('s1', 'owner', 1, 'mallory');
    const got: string[] = [];
    stream.attach({ write: (t) => void got.push(t), end: () => {} });
    stream.push(note('s1', 1, 2_000_000));
    stream.push(reply('s1', 2, 4_000_000));
    expect(got.map((t) => t.length > 2_000_000)).toEqual([true, true]); // a live reader still gets them
    const [kept1, kept2] = stream.after(0);
    expect(kept1).toBe('');
    expect(kept2!.startsWith('id: s1-2\nevent: message\ndata: ')).toBe(true);
    expect(JSON.parse(kept2!.slice(kept2!.indexOf('data: ') + 6))).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32603, data: { bound: 'maxChars' } } });
    expect(store.chars).toBeLessThan(1_000);
  });

  it('one principal keeps at most maxCharsPerPrincipal (8 MiB) over its streams, losing its own oldest; another principal\'s stream is untouched', () => {
    const store = new EventStore();
    const bob = store.open('bob', 'b', 1, 'bob');
    bob.push(note('bob', 1, 500_000));
    const mallory = Array.from({ length: 50 }, (_, i) => store.open(`m${i}`, 'm', 1, 'mallory'));
    for (const [i, stream] of mallory.entries()) for (let n = 1; n <= 4; n++) stream.push(note(`m${i}`, n, 240_000));
    expect(store.chars - bob.chars).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(mallory[0]!.dropped).toBe(true); // her oldest went
    expect(mallory.at(-1)!.chars).toBeGreaterThan(900_000); // her newest is kept
    expect(bob.dropped).toBe(false);
    expect(bob.after(0)).toHaveLength(1);
  });

  it('past maxTotalChars the writer sheds its own events, never another principal\'s (anonymous included)', () => {
    const store = new EventStore({ maxTotalChars: 3_000 });
    const alice = store.open('a', 'a', 1, 'alice');
    alice.push(note('a', 1, 1_000));
    const anonymous = store.open('x', 'x', 1, '');
    for (let n = 1; n <= 5; n++) anonymous.push(note('x', n, 1_000));
    expect(store.chars).toBeLessThanOrEqual(3_000);
    expect(alice.after(0)).toHaveLength(1);
    expect(anonymous.after(0).length).toBeGreaterThan(0);
  });

  it('past maxStreams a new stream drops its opener\'s own oldest, or is not kept: never another principal\'s', () => {
    const store = new EventStore({ maxStreams: 2 });
    const alice = store.open('a', 'a', 1, 'alice');
    store.open('m1', 'm', 1, 'mallory');
    const m2 = store.open('m2', 'm', 1, 'mallory');
    expect([alice.dropped, m2.dropped, store.size]).toEqual([false, false, 2]);
    const carol = store.open('c', 'c', 1, 'carol');
    expect([carol.dropped, alice.dropped]).toEqual([true, false]);
    expect(store.find('c-0', 'c')).toBeUndefined();
  });
});
