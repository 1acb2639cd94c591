import { describe, expect, it } from 'vitest';
import { type RingEntry, StreamRing } from '../../src/state/stream-ring.js';

/** A seeded generator, so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const entry = (id: string): RingEntry => ({ id, slot: -1 });
const order = (ring: StreamRing<RingEntry>): string[] => {
  const ids: string[] = [];
  for (let i = 0; i < ring.span; i++) {
    const at = ring.at(i);
    if (at !== undefined) ids.push(at.id);
  }
  return ids;
};

describe('the replay store\'s ring of streams', () => {
  it('keeps open order and finds every id through pushes, removals out of order, compaction and growth', () => {
    const next = random(35);
    const ring = new StreamRing<RingEntry>();
    const model: RingEntry[] = []; // open order
    let counter = 0;
    for (let step = 0; step < 20_000; step++) {
      const roll = next();
      // Short ids collide in the table's low bits often: the backward shift on delete is exercised.
      if (roll < 0.55 || model.length === 0) {
        const added = entry(`s${counter++}`);
        ring.push(added);
        model.push(added);
      } else if (roll < 0.75) {
        ring.remove(model.shift()!); // the oldest, as at the store's bound
      } else {
        const [removed] = model.splice(Math.floor(next() * model.length), 1); // a principal's own, mid-ring
        ring.remove(removed!);
        ring.remove(removed!); // twice: no effect
      }
      if (step % 997 === 0 || model.length < 3) {
        expect(ring.size).toBe(model.length);
        expect(order(ring)).toEqual(model.map((e) => e.id));
        for (const kept of model) expect(ring.get(kept.id)).toBe(kept);
        expect(ring.get(`s${counter}`)).toBeUndefined();
      }
    }
    for (let i = 0; i < counter; i++) {
      const kept = model.find((e) => e.id === `s${i}`);
      expect(ring.get(`s${i}`)).toBe(kept);
    }
  });

  it('reuses its slots at a steady bound instead of growing', () => {
    const ring = new StreamRing<RingEntry>();
    const kept: RingEntry[] = [];
    for (let i = 0; i < 100_000; i++) {
      const added = entry(`stream-${i}`);
      ring.push(added);
      kept.push(added);
      if (kept.length > 1000) ring.remove(kept.shift()!);
    }
    expect(ring.size).toBe(1000);
    expect(ring.span).toBeLessThanOrEqual(1001); // the head's hole is skipped by the next push
    expect(Math.max(...kept.map((e) => e.slot))).toBeLessThan(2048);
    expect(ring.get('stream-98999')).toBeUndefined();
    expect(ring.get('stream-99000')).toBe(kept[0]);
  });
});
