/** A task's statusMessage from progress messages: the first at once, then the latest once per interval. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StatusNote } from '../../../src/tasks/status-note.js';

describe('StatusNote', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('writes the first message at once, then at most one per interval, the latest winning; stop() drops what waits', () => {
    const written: string[] = [];
    const note = new StatusNote((m) => written.push(m), 100);
    note.set('one');
    expect(written).toEqual(['one']);
    note.set('two');
    note.set('three');
    expect(written).toEqual(['one']); // within the interval
    vi.advanceTimersByTime(100);
    expect(written).toEqual(['one', 'three']);
    vi.advanceTimersByTime(150);
    note.set('four'); // a whole interval since 'three': at once
    expect(written).toEqual(['one', 'three', 'four']);
    note.set('five');
    note.stop(); // the task ended first
    vi.advanceTimersByTime(500);
    expect(written).toEqual(['one', 'three', 'four']);
  });
});
