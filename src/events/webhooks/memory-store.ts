/**
 * The in-process DeliveryStore: one process, nothing shared. Due jobs wait in a FIFO per callback
 * host, taken round-robin across hosts (ready-queue.ts); retries in a list ordered by due time, a suspended subscription's jobs are parked until it is reactivated.
 * Everything it keeps has a bound: pending jobs by the engine's limits, remembered keys, verified
 * endpoints and per-host counters by fixed caps (the oldest go first).
 */
import { type Health, newHealth, recordAttempt, toStatus } from './health.js';
import { ReadyQueue } from './ready-queue.js';
import type { DeliveryStore, Job, PendingLimits } from './store.js';

/** Finished keys, verified endpoints and per-host windows kept at most (each). */
const MAX_REMEMBERED = 100_000;

interface Usage {
  count: number;
  bytes: number;
}

export function memoryDeliveryStore(): DeliveryStore {
  return new MemoryDeliveryStore();
}

class MemoryDeliveryStore implements DeliveryStore {
  readonly #jobs = new Map<string, Job>();
  /** Each subscription's pending keys, so `forget` does not walk every job. */
  readonly #bySubscription = new Map<string, Set<string>>();
  readonly #ready = new ReadyQueue();
  /** Retries, ascending by due time. */
  readonly #waiting: Array<{ at: number; job: Job }> = [];
  readonly #waitingKeys = new Set<string>();
  readonly #parked = new Map<string, Job[]>();
  readonly #finished = new Map<string, number>();
  readonly #usage = new Map<string, Usage>();
  readonly #total: Usage = { count: 0, bytes: 0 };
  readonly #health = new Map<string, Health>();
  readonly #verified = new Map<string, number | null>();
  readonly #slots = new Map<string, { window: number; count: number }>();

  async add(job: Job, limits: PendingLimits): Promise<'queued' | 'duplicate' | 'limit'> {
    if (this.#jobs.has(job.key)) return 'duplicate';
    const finished = this.#finished.get(job.key);
    if (finished !== undefined && finished > job.since) return 'duplicate';
    const usage = this.#usage.get(job.target.principal) ?? { count: 0, bytes: 0 };
    const bytes = job.bytes;
    if (usage.count + 1 > limits.perPrincipal || usage.bytes + bytes > limits.bytesPerPrincipal) return 'limit';
    if (this.#total.count + 1 > limits.total || this.#total.bytes + bytes > limits.bytesTotal) return 'limit';
    usage.count++;
    usage.bytes += bytes;
    this.#usage.set(job.target.principal, usage);
    this.#total.count++;
    this.#total.bytes += bytes;
    this.#jobs.set(job.key, job);
    const keys = this.#bySubscription.get(job.target.subscriptionId);
    if (keys === undefined) this.#bySubscription.set(job.target.subscriptionId, new Set([job.key]));
    else keys.add(job.key);
    this.#ready.push(job);
    return 'queued';
  }

  async claim(now: number, _leaseMs: number, max: number): Promise<Job[]> {
    while (this.#waiting.length > 0 && this.#waiting[0]!.at <= now) {
      const { job } = this.#waiting.shift()!;
      this.#waitingKeys.delete(job.key);
      this.#ready.push(job);
    }
    const claimed: Job[] = [];
    while (claimed.length < max) {
      const job = this.#ready.take();
      if (job === undefined) break;
      if (this.#jobs.get(job.key) !== job) continue; // forgotten meanwhile
      if (this.#health.get(job.target.subscriptionId)?.suspended) this.#park(job);
      else claimed.push(job);
    }
    return claimed;
  }

  async finish(job: Job, dedupMs: number): Promise<void> {
    if (!this.#release(job)) return;
    this.#finished.delete(job.key);
    this.#finished.set(job.key, job.since + dedupMs);
    trim(this.#finished);
  }

  async retry(job: Job, at: number): Promise<void> {
    if (this.#jobs.get(job.key) !== job) return;
    let low = 0;
    let high = this.#waiting.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.#waiting[mid]!.at <= at) low = mid + 1;
      else high = mid;
    }
    this.#waiting.splice(low, 0, { at, job });
    this.#waitingKeys.add(job.key);
  }

  async record(subscriptionId: string, now: number, failure: Parameters<DeliveryStore['record']>[2], policy: Parameters<DeliveryStore['record']>[3]): Promise<boolean> {
    let health = this.#health.get(subscriptionId);
    if (health === undefined) {
      this.#health.set(subscriptionId, (health = newHealth()));
      trim(this.#health); // subscriptions the events layer never forgot go first
    }
    return recordAttempt(health, now, failure, policy);
  }

  async status(subscriptionId: string) {
    const health = this.#health.get(subscriptionId);
    return health === undefined ? undefined : toStatus(health);
  }

  async reactivate(subscriptionId: string, now: number): Promise<void> {
    const health = this.#health.get(subscriptionId);
    if (health !== undefined) (health.suspended = false), (health.buckets = []); // a fresh sample: old failures do not suspend it again at once
    for (const job of this.#parked.get(subscriptionId) ?? []) {
      job.since = now; // time spent suspended does not use up the retry window
      this.#ready.push(job);
    }
    this.#parked.delete(subscriptionId);
  }

  async forget(subscriptionId: string): Promise<void> {
    for (const key of [...(this.#bySubscription.get(subscriptionId) ?? [])]) this.#release(this.#jobs.get(key)!);
    this.#parked.delete(subscriptionId);
    this.#health.delete(subscriptionId);
  }

  async isVerified(principal: string, url: string, now: number): Promise<boolean> {
    const until = this.#verified.get(`${principal}\u0000${url}`);
    return until === null || (until !== undefined && until > now);
  }

  async markVerified(principal: string, url: string, until: number | null): Promise<void> {
    const key = `${principal}\u0000${url}`;
    this.#verified.delete(key);
    this.#verified.set(key, until);
    trim(this.#verified);
  }

  async takeVerificationSlot(host: string, now: number, windowMs: number, max: number): Promise<boolean> {
    const window = Math.floor(now / windowMs);
    const slot = this.#slots.get(host);
    if (slot === undefined || slot.window !== window) {
      this.#slots.delete(host);
      this.#slots.set(host, { window, count: 1 });
      trim(this.#slots);
      return max >= 1;
    }
    return ++slot.count <= max;
  }

  async close(): Promise<void> {}

  #park(job: Job): void {
    const list = this.#parked.get(job.target.subscriptionId) ?? [];
    list.push(job);
    this.#parked.set(job.target.subscriptionId, list);
  }

  /** Removes a pending job and frees its share of the bounds; false if it was not pending. */
  #release(job: Job): boolean {
    if (this.#jobs.get(job.key) !== job) return false;
    this.#jobs.delete(job.key);
    const keys = this.#bySubscription.get(job.target.subscriptionId)!;
    keys.delete(job.key);
    if (keys.size === 0) this.#bySubscription.delete(job.target.subscriptionId);
    if (this.#waitingKeys.delete(job.key)) this.#waiting.splice(this.#waiting.findIndex((entry) => entry.job === job), 1);
    const usage = this.#usage.get(job.target.principal)!;
    usage.count--;
    usage.bytes -= job.bytes;
    if (usage.count === 0) this.#usage.delete(job.target.principal);
    this.#total.count--;
    this.#total.bytes -= job.bytes;
    return true;
  }
}

/** Drops the oldest entries of an insertion-ordered map beyond MAX_REMEMBERED. */
function trim(map: Map<string, unknown>): void {
  while (map.size > MAX_REMEMBERED) map.delete(map.keys().next().value!);
}
