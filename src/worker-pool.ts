/**
 * The threads behind `runInWorker`: a bounded pool. A thread costs about 8.5 MiB before it computes
 * anything, so one per call let a burst of calls take the process's memory (100 calls: 927 MiB).
 * Here at most `maxThreads` run, each one call at a time with V8 `resourceLimits`; more calls wait for
 * a thread (the server's `maxConcurrency` bounds how many can wait). Cancelling a running call ends
 * its thread (the only way to stop a synchronous loop); an idle thread ends after `idleMs`.
 */
import { availableParallelism } from 'node:os';
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { intOption } from './option-checks.js';

export interface WorkerPoolOptions {
  /** Threads at most. Default: one less than the CPUs available (`os.availableParallelism()`), at least 1, at most 8 (`defaultThreads`). */
  maxThreads?: number;
  /** V8 limits of each thread; a thread past them is ended and its call fails. Default: DEFAULT_WORKER_LIMITS. */
  resourceLimits?: ResourceLimits;
  /** An idle thread ends after this many ms. Default 30,000. */
  idleMs?: number;
}

/**
 * The default pool size for `cpus` CPUs: one CPU is left to the event loop, which serves every other
 * request. With a thread per CPU, one client's CPU-bound calls took every core, and the other clients
 * kept a third of their calls (docs/reliability.md, the soak under the `workers` attack).
 */
export const defaultThreads = (cpus: number): number => Math.max(1, Math.min(cpus - 1, 8));

/** Each thread's default limits: enough for real parsing work, far from the process's own heap. */
export const DEFAULT_WORKER_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  maxOldGenerationSizeMb: 128,
  maxYoungGenerationSizeMb: 32,
  stackSizeMb: 4,
});

/** What one call needs from its handler's context. */
export interface WorkerCallContext {
  readonly signal: AbortSignal;
  progress(progress: number, total?: number, message?: string): unknown;
}

interface Job {
  readonly module: string;
  readonly exportName: string;
  readonly input: unknown;
  readonly ctx: WorkerCallContext;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  onAbort(): void;
}

type Reply =
  | { id: number; progress: [number, number | undefined, string | undefined] }
  | { id: number; result: unknown }
  | { id: number; error: string };

// Runs inside each thread (an eval'd CommonJS script): one call at a time, each tagged with its id so a
// late progress() of an earlier call is never taken for the current one's.
const BOOTSTRAP = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', async ({ id, module, exportName, input }) => {
  const progress = (p, total, message) => parentPort.postMessage({ id, progress: [p, total, message] });
  try {
    const fn = (await import(module))[exportName];
    if (typeof fn !== 'function') throw new Error('the worker module has no function export "' + exportName + '"');
    parentPort.postMessage({ id, result: await fn(input, { progress }) });
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e) });
  }
});
`;

/**
 * Every failure in a thread is an ordinary error: its message goes to the server log, the client reads
 * the generic text (errors.md). A name ("UserError") is only a string the thread's code chose.
 */
const failed = (reason: string): Error => new Error(`The worker failed: ${reason}`);

let threadsModule: Promise<typeof import('node:worker_threads')> | undefined;

export class WorkerPool {
  readonly #max: number;
  readonly #limits: ResourceLimits;
  readonly #idleMs: number;
  readonly #threads = new Set<PoolThread>();
  readonly #idle: PoolThread[] = [];
  readonly #queue: Job[] = [];
  #Worker: typeof Worker | undefined;

  constructor(options: WorkerPoolOptions = {}) {
    this.#max = intOption(options, 'maxThreads', defaultThreads(availableParallelism()), { owner: 'WorkerPool option' });
    this.#limits = { ...DEFAULT_WORKER_LIMITS, ...options.resourceLimits };
    this.#idleMs = options.idleMs ?? 30_000;
  }

  /** Threads alive now (busy or idle). */
  get size(): number {
    return this.#threads.size;
  }

  async run(module: string, exportName: string, input: unknown, ctx: WorkerCallContext): Promise<unknown> {
    ctx.signal.throwIfAborted();
    this.#Worker ??= (await (threadsModule ??= import('node:worker_threads'))).Worker;
    ctx.signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const job: Job = { module, exportName, input, ctx, resolve, reject, onAbort: () => this.#aborted(job) };
      ctx.signal.addEventListener('abort', job.onAbort, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** Ends every thread; calls still waiting fail. */
  close(): void {
    for (const job of this.#queue.splice(0)) this.#settle(job, () => job.reject(failed('the pool was closed')));
    for (const thread of [...this.#threads]) thread.end();
  }

  #pump(): void {
    while (this.#queue.length > 0 && (this.#idle.length > 0 || this.#threads.size < this.#max)) {
      let thread = this.#idle.pop();
      if (thread === undefined) {
        thread = new PoolThread(this, new this.#Worker!(BOOTSTRAP, { eval: true, resourceLimits: this.#limits }));
        this.#threads.add(thread);
      }
      thread.start(this.#queue.shift()!);
    }
  }

  #aborted(job: Job): void {
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) this.#queue.splice(queued, 1);
    job.reject(job.ctx.signal.reason);
  }

  #settle(job: Job, outcome: () => void): void {
    job.ctx.signal.removeEventListener('abort', job.onAbort);
    outcome();
  }

  /** A call ended: the thread takes the next one, or waits idle (ended after idleMs). */
  finished(thread: PoolThread, job: Job, outcome: () => void): void {
    this.#settle(job, outcome);
    this.#idle.push(thread);
    thread.idleFor(this.#idleMs);
    this.#pump();
  }

  /** A thread is gone (ended, crashed, past its limits): its place is free. */
  gone(thread: PoolThread): void {
    const idle = this.#idle.indexOf(thread);
    if (idle >= 0) this.#idle.splice(idle, 1);
    this.#threads.delete(thread);
    this.#pump();
  }

  /** The running call of a thread failed or was cancelled. */
  fail(job: Job, error: unknown): void {
    this.#settle(job, () => job.reject(error));
  }
}

/** One thread of the pool and the call it runs. */
class PoolThread {
  #job: Job | undefined;
  #id = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  #ended = false;

  constructor(
    private readonly pool: WorkerPool,
    private readonly worker: Worker,
  ) {
    worker.on('message', (reply: Reply) => this.#reply(reply));
    worker.on('error', (error) => this.#down(failed(error.message)));
    worker.on('exit', (code) => this.#down(failed(`the thread exited (code ${code}) without a result`)));
  }

  start(job: Job): void {
    clearTimeout(this.#idleTimer);
    this.#job = job;
    this.worker.ref();
    // A cancelled call must stop now, even in an endless loop: the thread goes with it.
    job.ctx.signal.removeEventListener('abort', job.onAbort);
    job.onAbort = () => this.#down(job.ctx.signal.reason);
    job.ctx.signal.addEventListener('abort', job.onAbort, { once: true });
    this.worker.postMessage({ id: ++this.#id, module: job.module, exportName: job.exportName, input: job.input });
  }

  idleFor(ms: number): void {
    this.worker.unref(); // an idle thread never keeps the process alive
    this.#idleTimer = setTimeout(() => this.end(), ms);
    this.#idleTimer.unref();
  }

  end(): void {
    this.#down(failed('the pool was closed'));
  }

  #reply(reply: Reply): void {
    const job = this.#job;
    if (job === undefined || reply.id !== this.#id) return;
    if ('progress' in reply) return void job.ctx.progress(...reply.progress);
    this.#job = undefined;
    const outcome = 'result' in reply ? () => job.resolve(reply.result) : () => job.reject(failed(reply.error));
    this.pool.finished(this, job, outcome);
  }

  #down(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#idleTimer);
    const job = this.#job;
    this.#job = undefined;
    void this.worker.terminate();
    if (job !== undefined) this.pool.fail(job, error);
    this.pool.gone(this);
  }
}
