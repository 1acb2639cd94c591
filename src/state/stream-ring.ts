/**
 * The replay store's kept streams in the order they were opened, and its index by stream id, in
 * fixed arrays: a ring of slots (oldest from `head`) and an open-addressing table of slot numbers.
 * At the store's bound every open forgets one stream and keeps another; a Map would delete and add
 * a key each time (a deleted slot stays until the table is rebuilt, and a walk steps over it), and a
 * growing list would be copied to compact it. Here a slot is reused in place, and the table shifts
 * entries back on delete (no tombstones). A stream dropped out of order leaves a hole that the head
 * skips when it opens the next, or that compaction closes once the ring is full (then at least
 * half of it are holes, or it doubles).
 * No node: imports: the fetch handler uses it too.
 */

/** What the ring keeps: an id to index by, and a slot it is told of. */
export interface RingEntry {
  readonly id: string;
  /** Where it is in the ring (set by the ring; -1 once removed). */
  slot: number;
}

/**
 * FNV-1a over the id's last 12 characters and its length: stream ids are random (their tail is as
 * good as all of them), and a counter-like id differs in its tail too. A lookup only reads what an
 * open put in, so an id a client sends cannot lengthen a probe run.
 */
function hashOf(id: string): number {
  let hash = Math.imul(0x811c9dc5 ^ id.length, 0x01000193);
  for (let i = Math.max(0, id.length - 12); i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const FIRST_CAPACITY = 64;

export class StreamRing<T extends RingEntry> {
  #slots: (T | undefined)[];
  /** Each slot's id hash (a shift on delete reads the hashes of the cells after it). */
  #hashes: Uint32Array;
  /** Slot number + 1 per table cell, 0 for an empty cell; twice the slots or more, a power of two. */
  #table: Int32Array;
  #mask: number;
  /** The oldest slot in use, and how many slots from it are in use (holes included). */
  #head = 0;
  #used = 0;
  #live = 0;

  constructor() {
    this.#slots = new Array(FIRST_CAPACITY);
    this.#hashes = new Uint32Array(FIRST_CAPACITY);
    this.#table = new Int32Array(FIRST_CAPACITY * 2);
    this.#mask = FIRST_CAPACITY * 2 - 1;
  }

  /** Entries kept. */
  get size(): number {
    return this.#live;
  }

  get(id: string): T | undefined {
    const slots = this.#slots;
    for (let cell = hashOf(id) & this.#mask; ; cell = (cell + 1) & this.#mask) {
      const at = this.#table[cell]!;
      if (at === 0) return undefined;
      const entry = slots[at - 1]!;
      if (entry.id === id) return entry;
    }
  }

  /** Keeps `entry` as the newest (its id must not be kept already). */
  push(entry: T): void {
    this.#skipHoles();
    if (this.#used === this.#slots.length) this.#makeRoom();
    const slot = (this.#head + this.#used++) % this.#slots.length;
    this.#slots[slot] = entry;
    entry.slot = slot;
    this.#live++;
    this.#hashes[slot] = hashOf(entry.id);
    this.#insert(slot);
  }

  /** Forgets `entry` (a hole where it was, skipped once it reaches the head). */
  remove(entry: T): void {
    const slot = entry.slot;
    if (slot < 0 || this.#slots[slot] !== entry) return;
    this.#unindex(slot);
    this.#slots[slot] = undefined;
    entry.slot = -1;
    this.#live--;
  }

  /**
   * How many positions `at` reads, oldest first (holes included). Removing entries while reading
   * them moves nothing: holes are closed only by `push`.
   */
  get span(): number {
    return this.#used;
  }

  /** The entry at position `i` of `span`, oldest first; undefined for a hole. */
  at(i: number): T | undefined {
    const slots = this.#slots;
    return slots[(this.#head + i) % slots.length];
  }

  #skipHoles(): void {
    const slots = this.#slots;
    while (this.#used > 0 && slots[this.#head] === undefined) {
      this.#head = (this.#head + 1) % slots.length;
      this.#used--;
    }
    if (this.#used === 0) this.#head = 0;
  }

  /** The ring is full: closes its holes when at least half of it is holes, else doubles it; then re-indexes. */
  #makeRoom(): void {
    const old = this.#slots;
    const capacity = this.#live * 2 > old.length ? old.length * 2 : old.length;
    const slots: (T | undefined)[] = capacity === old.length ? old : new Array(capacity);
    const hashes = capacity === old.length ? this.#hashes : new Uint32Array(capacity);
    const live: T[] = [];
    const liveHashes: number[] = [];
    for (let i = 0; i < this.#used; i++) {
      const at = (this.#head + i) % old.length;
      const entry = old[at];
      if (entry === undefined) continue;
      live.push(entry);
      liveHashes.push(this.#hashes[at]!);
    }
    slots.fill(undefined);
    for (let i = 0; i < live.length; i++) {
      slots[i] = live[i];
      hashes[i] = liveHashes[i]!;
      live[i]!.slot = i;
    }
    this.#slots = slots;
    this.#hashes = hashes;
    this.#head = 0;
    this.#used = live.length;
    if (this.#table.length < capacity * 2) {
      this.#table = new Int32Array(capacity * 2);
      this.#mask = capacity * 2 - 1;
    } else this.#table.fill(0);
    for (let slot = 0; slot < live.length; slot++) this.#insert(slot);
  }

  #insert(slot: number): void {
    let cell = this.#hashes[slot]! & this.#mask;
    while (this.#table[cell] !== 0) cell = (cell + 1) & this.#mask;
    this.#table[cell] = slot + 1;
  }

  /** Deletes the slot's cell and shifts later cells of its run back (linear probing without tombstones). */
  #unindex(slot: number): void {
    const table = this.#table;
    const mask = this.#mask;
    let cell = this.#hashes[slot]! & mask;
    while (table[cell] !== 0 && table[cell] !== slot + 1) cell = (cell + 1) & mask;
    if (table[cell] === 0) return;
    let hole = cell;
    for (let next = (hole + 1) & mask; table[next] !== 0; next = (next + 1) & mask) {
      const home = this.#hashes[table[next]! - 1]! & mask;
      // The entry at `next` may move back into the hole unless its home lies cyclically in (hole, next].
      if ((next - home + mask + 1) % (mask + 1) >= (next - hole + mask + 1) % (mask + 1)) {
        table[hole] = table[next]!;
        hole = next;
      }
    }
    table[hole] = 0;
  }
}
