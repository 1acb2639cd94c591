/**
 * Due deliveries of the in-memory store, one FIFO per callback host, taken round-robin across hosts:
 * a host with a long backlog (or a slow one) gets its turn like any other, so a delivery to another
 * host waits for at most one turn, not for the whole backlog.
 */
import type { Job } from './store.js';

interface HostQueue {
  jobs: Job[];
  head: number;
}

export class ReadyQueue {
  readonly #queues = new Map<string, HostQueue>();
  /** Hosts with due deliveries, in turn order (each once). */
  readonly #hosts: string[] = [];
  #turn = 0;

  push(job: Job): void {
    const host = hostOf(job.target.url);
    let queue = this.#queues.get(host);
    if (queue === undefined) {
      this.#queues.set(host, (queue = { jobs: [], head: 0 }));
      this.#hosts.push(host);
    }
    queue.jobs.push(job);
  }

  /** The next job in host turn order, or undefined when none is due. */
  take(): Job | undefined {
    if (this.#hosts.length === 0) return undefined;
    if (this.#turn >= this.#hosts.length) this.#turn = 0;
    const host = this.#hosts[this.#turn]!;
    const queue = this.#queues.get(host)!;
    const job = queue.jobs[queue.head++]!;
    if (queue.head === queue.jobs.length) {
      this.#queues.delete(host);
      this.#hosts.splice(this.#turn, 1); // the next host moves into this turn
    } else {
      if (queue.head > 1024 && queue.head * 2 > queue.jobs.length) queue.jobs.splice(0, queue.head), (queue.head = 0);
      this.#turn++;
    }
    return job;
  }
}

/** The callback URL's host name: the unit of turn-taking. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
