/**
 * Issue 23 item 3: one body reader for the node and fetch entries (src/transports/http/body-reader.ts).
 * The entries' own tests (test/security/bodies.test.ts, fetch-body-deadline.test.ts) hold the wire
 * behaviour; these hold the rules on the reader itself: one outcome, the budget given back, the source told to stop.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventStore } from '../../src/index.js';
import { bodyBudget } from '../../src/transports/http/body-budget.js';
import { BodyReader } from '../../src/transports/http/body-reader.js';
import type { BodyRead } from '../../src/transports/http/exchange.js';
import { resolveSettings } from '../../src/transports/http/options.js';

const settings = resolveSettings({ maxBufferedBytes: 100, bodyTimeoutMs: 50 }, new EventStore());
const bytes = (n: number) => new Uint8Array(n).fill(65);

function reader(limit: number, declared = Number.NaN) {
  const seen: BodyRead[] = [];
  const source = { stops: 0, stopReading() { this.stops++; } };
  const body = new BodyReader(limit, declared, settings, { bodyRead: (b) => seen.push(b) }, source);
  return { body, seen, source };
}

afterEach(() => vi.useRealTimers());

describe('BodyReader', () => {
  it('joins the chunks, hands them over once and gives the budget back', () => {
    const { body, seen } = reader(10);
    body.chunk(bytes(4));
    body.chunk(bytes(6));
    expect(bodyBudget.buffered).toBe(10);
    body.end();
    body.end();
    expect(seen).toEqual([bytes(10)]);
    expect(bodyBudget.buffered).toBe(0);
  });

  it('past the limit drops the rest (nothing held) and answers too-large at the end', () => {
    const { body, seen, source } = reader(5);
    body.chunk(bytes(4));
    body.chunk(bytes(4));
    expect(bodyBudget.buffered).toBe(0);
    body.end();
    expect(seen).toEqual(['too-large']);
    expect(source.stops).toBe(0);
  });

  it('a declared length over the limit is too-large even when the body sent is short', () => {
    const { body, seen } = reader(5, 50);
    body.chunk(bytes(1));
    body.end();
    expect(seen).toEqual(['too-large']);
  });

  it('past the process budget: over-budget at once, and the source stops', () => {
    const { body, seen, source } = reader(1_000);
    body.chunk(bytes(60));
    body.chunk(bytes(60));
    expect(seen).toEqual(['over-budget']);
    expect(source.stops).toBe(1);
    expect(bodyBudget.buffered).toBe(0);
  });

  it('the deadline answers too-slow and stops the source; a broken source is unreadable', () => {
    const slow = reader(10);
    slow.body.chunk(bytes(1));
    slow.body.expire();
    expect(slow.seen).toEqual(['too-slow']);
    expect(slow.source.stops).toBe(1);
    const broken = reader(10);
    broken.body.fail();
    expect(broken.seen).toEqual([undefined]);
  });

  it('lingering ends after LINGER_MS at most, as too-large', () => {
    vi.useFakeTimers();
    const { body, seen, source } = reader(5);
    body.chunk(bytes(10));
    vi.advanceTimersByTime(2_000);
    expect(seen).toEqual(['too-large']);
    expect(source.stops).toBe(1);
  });
});
