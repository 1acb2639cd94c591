/** The two limits every request passes through: a cap on concurrent handlers and an idle timer. */
import { ErrorCode, McpError } from '../protocol/errors.js';

export const overloaded = (): McpError =>
  new McpError(ErrorCode.InternalError, 'Server overloaded: too many concurrent requests, retry later', undefined, 503);

/**
 * Admits at most `max` handlers at once; up to `maxQueue` more wait (each at most `queueTimeoutMs`).
 * Past that, `acquire` refuses at once: a fast overload answer beats unbounded queueing.
 */
export class ConcurrencyGate {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(
    readonly max: number,
    readonly maxQueue: number,
    readonly queueTimeoutMs: number,
  ) {}

  get active(): number {
    return this.#active;
  }

  /** true: admitted now (no Promise on the hot path); false: refused; a Promise: admitted later or refused. */
  acquire(): boolean | Promise<boolean> {
    if (this.#active < this.max) {
      this.#active++;
      return true;
    }
    if (this.#waiting.length >= this.maxQueue) return false;
    return new Promise<boolean>((resolve) => {
      const admit = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const i = this.#waiting.indexOf(admit);
        if (i >= 0) this.#waiting.splice(i, 1);
        resolve(false);
      }, this.queueTimeoutMs);
      this.#waiting.push(admit);
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next(); // the slot passes straight to the next waiter
    else this.#active--;
  }
}

/** What the sweeper watches. The links make watch/unwatch O(1) without hashing: it runs twice per async request. */
export interface Idle {
  lastActive: number;
  paused: number;
  expire(): void;
  idlePrev: Idle | undefined;
  idleNext: Idle | undefined;
}

/**
 * Times out requests that showed no sign of life for `ms`. One shared interval sweeps them instead of
 * a timer per request (a timer per request costs as much as a no-op handler). A request expires
 * between `ms` and `ms` + one tick (a quarter of `ms`, at most 1 s).
 */
export class IdleSweeper {
  /** The watched items, newest first: an intrusive doubly linked list. */
  #head: Idle | undefined;
  readonly #tick: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly ms: number) {
    this.#tick = Math.min(1_000, Math.max(5, Math.floor(ms / 4)));
  }

  /** Starts the item's idle clock now. */
  watch(item: Idle): void {
    if (item.idlePrev !== undefined || this.#head === item) return; // already watched
    item.lastActive = Date.now();
    item.idleNext = this.#head;
    if (this.#head !== undefined) this.#head.idlePrev = item;
    this.#head = item;
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#sweep(), this.#tick);
      (this.#timer as { unref?: () => void }).unref?.(); // never keeps a process alive by itself
    }
  }

  unwatch(item: Idle): void {
    const { idlePrev: prev, idleNext: next } = item;
    if (prev === undefined && this.#head !== item) return; // not watched
    if (prev !== undefined) prev.idleNext = next;
    else this.#head = next;
    if (next !== undefined) next.idlePrev = prev;
    item.idlePrev = item.idleNext = undefined;
  }

  #sweep(): void {
    if (this.#head === undefined) {
      // Stopped lazily, so steady traffic does not start and stop the interval on every request.
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const deadline = Date.now() - this.ms;
    for (let item: Idle | undefined = this.#head; item !== undefined;) {
      const next: Idle | undefined = item.idleNext;
      if (item.paused === 0 && item.lastActive <= deadline) {
        this.unwatch(item);
        item.expire();
      }
      item = next;
    }
  }
}
