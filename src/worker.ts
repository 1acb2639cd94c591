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
 * within `idleTimeoutMs`.
 */
import type { Worker } from 'node:worker_threads';
import type { Context } from './context/context.js';
import { UserError } from './protocol/errors.js';

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
}

type Message = { progress: [number, number | undefined, string | undefined] } | { result: unknown } | { error: string; user: boolean };

// Runs inside the thread (an eval'd CommonJS script): imports the module, calls the export, posts back.
const BOOTSTRAP = `
const { parentPort, workerData } = require('node:worker_threads');
const progress = (p, total, message) => parentPort.postMessage({ progress: [p, total, message] });
import(workerData.module)
  .then(async (m) => {
    const fn = m[workerData.exportName];
    if (typeof fn !== 'function') throw new Error('the worker module has no function export "' + workerData.exportName + '"');
    parentPort.postMessage({ result: await fn(workerData.input, { progress }) });
  })
  .catch((e) => parentPort.postMessage({ error: String((e && e.message) || e), user: Boolean(e && e.name === 'UserError') }));
`;

/**
 * Calls `exportName` (default `default`) of `module` in a new worker thread with `input`; resolves
 * with its result. Aborting `ctx.signal` (cancellation, disconnect, the idle timeout) terminates the
 * thread and rejects.
 */
export async function runInWorker<Output = unknown>(
  module: URL | string,
  input: unknown,
  ctx: Pick<Context<unknown>, 'signal' | 'progress'>,
  options: RunInWorkerOptions = {},
): Promise<Output> {
  const signal = ctx.signal;
  signal.throwIfAborted();
  const { Worker: WorkerThread } = await import('node:worker_threads');
  const url = module instanceof URL ? module.href : module;
  const worker: Worker = new WorkerThread(BOOTSTRAP, { eval: true, workerData: { module: url, exportName: options.exportName ?? 'default', input } });
  return new Promise<Output>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const onAbort = (): void => settle(() => reject(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: Message) => {
      if ('progress' in message) return ctx.progress(...message.progress);
      if ('result' in message) return settle(() => resolve(message.result as Output));
      // A UserError thrown in the thread stays one: its message is meant for the client.
      settle(() => reject(message.user ? new UserError(message.error) : new Error(`The worker failed: ${message.error}`)));
    });
    worker.on('error', (error) => settle(() => reject(new Error(`The worker failed: ${error.message}`))));
    worker.on('exit', (code) => settle(() => reject(new Error(`The worker exited (code ${code}) without a result`))));
  });
}
