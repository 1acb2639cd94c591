/**
 * The delivery loop of one instance: claims due deliveries from the store and attempts them.
 */
import { setMaxListeners } from 'node:events';
import { type Attempts, attemptDelivery } from './attempt.js';
import type { Job } from './store.js';
import type { Clock } from './types.js';

/**
 * The loop that takes due deliveries from the store and attempts them, at most `concurrency` at once:
 * woken by an enqueue here, by a finished attempt, and every `pollMs` (deliveries enqueued on another
 * instance, retries come due, leases of a dead instance run out).
 */
export function createPump(attempts: Attempts, config: { concurrency: number; pollMs: number; leaseMs: number }) {
  const { clock } = attempts;
  const inFlight = new Set<Promise<void>>();
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // one listener per attempt in flight, up to `concurrency`, each removed when it ends
  let running = false;
  let again = false;
  let timer: unknown;
  let stopped = false;
  const claim = claimer(attempts, config.leaseMs);
  const arm = () => {
    if (!stopped) timer = clock.setTimeout(() => kick(), config.pollMs);
  };
  async function run(): Promise<void> {
    const room = config.concurrency - inFlight.size;
    if (room <= 0) return;
    const jobs = await claim(room);
    for (const job of jobs) {
      const attempt = attemptDelivery(attempts, job, abort.signal)
        .catch((error: unknown) => attempts.log(`webhook attempt failed: ${error instanceof Error ? error.message : String(error)}`)) // never an unhandled rejection
        .finally(() => {
          inFlight.delete(attempt);
          kick();
        });
      inFlight.add(attempt);
    }
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
      abort.abort(); // in-flight attempts end now; their jobs stay claimed until the lease ends, then any instance takes them
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** Claims up to `max` due jobs; a failing store gives none and is logged once per outage. */
function claimer(attempts: Attempts, leaseMs: number): (max: number) => Promise<Job[]> {
  let down = false;
  return (max) =>
    attempts.store.claim(attempts.clock.now(), leaseMs, max).then(
      (claimed) => ((down = false), claimed),
      (error: unknown) => {
        if (!down) attempts.log(`webhook store unavailable: ${error instanceof Error ? error.message : String(error)}`);
        down = true;
        return [];
      },
    );
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
