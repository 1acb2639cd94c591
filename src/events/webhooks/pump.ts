/**
 * The delivery loop of one instance: claims due deliveries from the store and attempts them.
 */
import { setMaxListeners } from 'node:events';
import { type Attempts, attemptDelivery } from './attempt.js';
import type { Job } from './store.js';
import type { Clock } from './types.js';

/** How long a delivery waits when its host already has `perHostConcurrency` attempts in flight. */
const HOST_BUSY_DELAY_MS = 1_000;

/** Attempts in flight per callback host name, at most `max` each. */
function hostSlots(max: number) {
  const busy = new Map<string, number>();
  return {
    /** The job's host if it has a free slot (taken now), else undefined. */
    take(job: Job): string | undefined {
      let host: string;
      try {
        host = new URL(job.target.url).hostname;
      } catch {
        host = '';
      }
      const used = busy.get(host) ?? 0;
      if (used >= max) return undefined;
      busy.set(host, used + 1);
      return host;
    },
    give(host: string): void {
      const used = (busy.get(host) ?? 1) - 1;
      if (used <= 0) busy.delete(host);
      else busy.set(host, used);
    },
  };
}

/**
 * The loop that takes due deliveries from the store and attempts them, at most `concurrency` at once:
 * woken by an enqueue here, by a finished attempt, and every `pollMs` (deliveries enqueued on another
 * instance, retries come due, leases of a dead instance run out).
 */
export function createPump(attempts: Attempts, config: { concurrency: number; perHost: number; pollMs: number; leaseMs: number }) {
  const { clock } = attempts;
  const slots = attemptSlots(attempts, config.perHost, () => kick());
  let running = false;
  let again = false;
  let timer: unknown;
  let stopped = false;
  const arm = () => {
    if (!stopped) timer = clock.setTimeout(() => kick(), config.pollMs);
  };
  async function run(): Promise<void> {
    const room = config.concurrency - slots.inFlight.size;
    if (room <= 0) return;
    const jobs = await attempts.store.claim(clock.now(), config.leaseMs, room).catch((error: unknown) => {
      attempts.log(`webhook store unavailable: ${error instanceof Error ? error.message : String(error)}`);
      return [] as Job[];
    });
    for (const job of jobs) slots.start(job);
    if (jobs.length === room) again = true; // there may be more due
  }
  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    clock.clearTimeout(timer);
    void run().finally(() => {
      running = false;
      if (again && !stopped) {
        again = false;
        kick();
      } else arm();
    });
  }
  arm();
  const alarm = createAlarm(clock, kick);
  return {
    kick,
    wakeAt: (at: number) => !stopped && alarm.set(at),
    async stop() {
      stopped = true;
      clock.clearTimeout(timer);
      alarm.clear();
      await slots.abort();
    },
  };
}

/** The attempts in flight: started unless the job's host has its share (then it waits, not counted as an attempt). */
function attemptSlots(attempts: Attempts, perHost: number, finished: () => void) {
  const inFlight = new Set<Promise<void>>();
  const hosts = hostSlots(perHost);
  const controller = new AbortController();
  setMaxListeners(0, controller.signal); // one listener per attempt in flight, each removed when it ends
  return {
    inFlight,
    start(job: Job): void {
      const host = hosts.take(job);
      if (host === undefined) {
        // One slow endpoint must not hold every slot. If this write is lost, the claim's lease brings the job back.
        attempts.store.retry(job, attempts.clock.now() + HOST_BUSY_DELAY_MS).catch(() => {});
        return;
      }
      const attempt = attemptDelivery(attempts, job, controller.signal).finally(() => {
        hosts.give(host);
        inFlight.delete(attempt);
        finished();
      });
      inFlight.add(attempt);
    },
    /** In-flight attempts end now; their jobs stay claimed until the lease ends, then any instance takes them. */
    async abort(): Promise<void> {
      controller.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** One timer for the earliest retry this instance scheduled (a later one is found by the next wake or poll). */
function createAlarm(clock: Clock, ring: () => void) {
  let wake: { at: number; timer: unknown } | undefined;
  const clear = () => {
    if (wake !== undefined) clock.clearTimeout(wake.timer);
    wake = undefined;
  };
  return {
    clear,
    set(at: number): void {
      if (wake !== undefined && wake.at <= at) return;
      clear();
      const timer = clock.setTimeout(() => {
        wake = undefined;
        ring();
      }, Math.max(0, at - clock.now()));
      wake = { at, timer };
    },
  };
}
