/**
 * A binary min-heap of entries ordered by the time they leave (`until`, ms): the earliest comes out
 * first, so expiry is swept in order, a few steps per entry, never by walking everything kept.
 */
export interface Expiring {
  readonly until: number;
}

export class ExpiryHeap<T extends Expiring> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(item: T): void {
    const items = this.#items;
    let i = items.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.until <= item.until) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  /** The earliest entry if its time is at or before `now` (removed), else undefined. */
  popDue(now: number): T | undefined {
    const items = this.#items;
    const first = items[0];
    if (first === undefined || first.until > now) return undefined;
    const last = items.pop()!;
    if (items.length > 0) this.#sinkFromTop(last);
    return first;
  }

  #sinkFromTop(item: T): void {
    const items = this.#items;
    const n = items.length;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && items[child + 1]!.until < items[child]!.until) child++;
      if (items[child]!.until >= item.until) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = item;
  }
}
