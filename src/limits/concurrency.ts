/** The two limits every request passes through: a cap on concurrent handlers and an idle timer. */
import { ErrorCode, McpError } from '../protocol/errors.js';

export const overloaded = (): McpError =>
  new McpError(ErrorCode.InternalError, 'Server overloaded: too many concurrent requests, retry later', undefined, 503);

/** A request waiting for a slot: the gate calls `slot` once, with true (admitted) or false (timed out). */
export interface Waiter {
  slot(granted: boolean): void;
}

interface Queued {
  readonly waiter: Waiter;
  readonly principal: string | undefined;
  readonly deadline: number;
}

/** What one principal holds: slots in use and places in the queue. */
interface Share {
  active: number;
  queued: number;
}

/**
 * Admits at most `max` handlers at once; up to `maxQueue` more wait (each at most `queueTimeoutMs`).
 * Past that, `acquire` refuses at once: a fast overload answer beats unbounded queueing. When the
 * caller names a principal, that principal gets at most `perPrincipal` slots (and as many queue
 * places), so one principal cannot starve the others. One timer serves the whole queue.
 */
export class ConcurrencyGate {
  #active = 0;
  readonly #queue: Queued[] = [];
  readonly #shares = new Map<string, Share>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly max: number,
    readonly maxQueue: number,
    readonly queueTimeoutMs: number,
    readonly perPrincipal: number = max,
  ) {}

  get active(): number {
    return this.#active;
  }

  /** true: admitted now (no promise on the hot path); false: refused; undefined: queued, `waiter.slot()` comes later. */
  acquire(waiter: Waiter, principal?: string): boolean | undefined {
    const share = principal === undefined ? undefined : this.#share(principal);
    if (this.#active < this.max && (share === undefined || share.active < this.perPrincipal)) {
      this.#active++;
      if (share !== undefined) share.active++;
      return true;
    }
    if (this.#queue.length >= this.maxQueue || (share !== undefined && share.queued >= this.perPrincipal)) {
      this.#forget(principal, share);
      return false;
    }
    if (share !== undefined) share.queued++;
    this.#queue.push({ waiter, principal, deadline: Date.now() + this.queueTimeoutMs });
    if (this.#timer === undefined) this.#arm();
    return undefined;
  }

  /** Gives the slot back; it passes straight to the first waiter whose principal is under its share. */
  release(principal?: string): void {
    const share = principal === undefined ? undefined : this.#shares.get(principal);
    if (share !== undefined) share.active--;
    const i = this.#queue.length === 0 ? -1 : this.#nextEligible();
    if (i < 0) {
      this.#active--;
      this.#forget(principal, share);
      return;
    }
    const [next] = this.#queue.splice(i, 1) as [Queued];
    const nextShare = next.principal === undefined ? undefined : this.#shares.get(next.principal);
    if (nextShare !== undefined) {
      nextShare.queued--;
      nextShare.active++;
    }
    this.#forget(principal, share);
    next.waiter.slot(true);
  }

  #share(principal: string): Share {
    let share = this.#shares.get(principal);
    if (share === undefined) this.#shares.set(principal, (share = { active: 0, queued: 0 }));
    return share;
  }

  /** Drops a principal's entry once it holds nothing, so the map stays as small as the traffic. */
  #forget(principal: string | undefined, share: Share | undefined): void {
    if (share !== undefined && share.active === 0 && share.queued === 0) this.#shares.delete(principal!);
  }

  #nextEligible(): number {
    for (let i = 0; i < this.#queue.length; i++) {
      const principal = this.#queue[i]!.principal;
      if (principal === undefined || this.#shares.get(principal)!.active < this.perPrincipal) return i;
    }
    return -1;
  }

  /** One timer for the queue: set for the oldest waiter (the queue is in deadline order). */
  #arm(): void {
    const head = this.#queue[0];
    this.#timer = head === undefined ? undefined : setTimeout(() => this.#expire(), Math.max(0, head.deadline - Date.now()));
  }

  #expire(): void {
    const now = Date.now();
    const expired: Queued[] = [];
    while (this.#queue.length > 0 && this.#queue[0]!.deadline <= now) expired.push(this.#queue.shift()!);
    this.#arm();
    for (const { waiter, principal } of expired) {
      const share = principal === undefined ? undefined : this.#shares.get(principal);
      if (share !== undefined) share.queued--;
      this.#forget(principal, share);
      waiter.slot(false);
    }
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
