/**
 * `minimcp/worker`: runs a CPU-bound tool body in a worker thread (Node, Bun and Deno have
 * `node:worker_threads`; Workers do not). A handler that computes on the main thread blocks the event
 * loop: no other request is served, and neither cancellation nor the idle timeout can fire until it
 * returns. In a worker the main thread stays free, so both work, and they end the thread at once
 * (`worker.terminate()`), even inside an endless loop.
 *
 *   // primes.js, the worker module (plain JS the runtime can import as is):
 *   export default function countPrimes({ below }, { progress }) { ... progress(n, below); return { count }; }
 *
 *   // the server:
 *   mcp.tool('count_primes', { input }, (args, ctx) =>
 *     runInWorker(new URL('./primes.js', import.meta.url), args, ctx));
 *
 * The input and the result cross threads by structured clone. `progress()` in the worker reports
 * through `ctx.progress()` (which also restarts the idle clock); without it the tool must finish
 * within `idleTimeoutMs`. The threads form a bounded pool with V8 resource limits (worker-pool.ts).
 */
import type { Context } from './context/context.js';
import { WorkerPool } from './worker-pool.js';

export { DEFAULT_WORKER_LIMITS, WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

/** What the worker module's function receives besides its input. */
export interface WorkerTools {
  /** Reports progress to the client (when it asked) and restarts the idle timeout. */
  progress(progress: number, total?: number, message?: string): void;
}

/** The shape of a worker module's export. */
export type WorkerFunction<Input, Output> = (input: Input, tools: WorkerTools) => Output | Promise<Output>;

export interface RunInWorkerOptions {
  /** The export to call. Default: `default`. */
  exportName?: string;
  /** The threads to run on. Default: one process-wide pool with the default options. */
  pool?: WorkerPool;
}

let shared: WorkerPool | undefined;

/**
 * Calls `exportName` (default `default`) of `module` in a thread of the pool with `input`; resolves
 * with its result. Aborting `ctx.signal` (cancellation, disconnect, the idle timeout) ends the thread
 * and rejects. Anything the thread throws is an ordinary error: logged, never shown to the client.
 */
export async function runInWorker<Output = unknown>(
  module: URL | string,
  input: unknown,
  ctx: Pick<Context<unknown>, 'signal' | 'progress'>,
  options: RunInWorkerOptions = {},
): Promise<Output> {
  const pool = options.pool ?? (shared ??= new WorkerPool());
  const url = module instanceof URL ? module.href : module;
  return (await pool.run(url, options.exportName ?? 'default', input, ctx)) as Output;
}
