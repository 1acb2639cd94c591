/**
 * Issue 24, finding 11: `runInWorker` ran a new thread per call with no pool and no V8 limits (about
 * 8.5 MiB a thread: 100 calls took 927 MiB), and an error the thread named `UserError` reached the
 * client verbatim. Now: a bounded pool of threads with `resourceLimits`, and whatever a thread throws
 * is an ordinary error (errors.md: logged, the client reads the generic text).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { DEFAULT_WORKER_LIMITS, WorkerPool, runInWorker } from '../../src/worker.js';
import { defaultThreads } from '../../src/worker-pool.js';

const MODULE = new URL('./fixtures/pool-worker.mjs', import.meta.url);
const pools: WorkerPool[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

function server(pool?: WorkerPool) {
  const logged: string[] = [];
  const mcp = new MiniMCP({ name: 'pool', version: '1', onError: (error) => void logged.push(String((error as Error).message)) });
  const cells = new SharedArrayBuffer(12);
  const options = (exportName: string) => (pool ? { exportName, pool } : { exportName });
  mcp.tool('busy', {}, (_a, ctx) => runInWorker<number>(MODULE, { cells }, ctx, options('busy')).then(String));
  mcp.tool('limits', {}, (_a, ctx) => runInWorker(MODULE, {}, ctx, options('limits')).then((l) => JSON.stringify(l)));
  mcp.tool('hog', {}, (_a, ctx) => runInWorker(MODULE, {}, ctx, options('hog')));
  mcp.tool('userError', {}, (_a, ctx) => runInWorker(MODULE, {}, ctx, options('userError')));
  mcp.tool('spin', {}, (_a, ctx) => runInWorker(MODULE, {}, ctx, options('spin')));
  const peak = () => Atomics.load(new Int32Array(cells), 1);
  return { mcp, logged, peak };
}

const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }) as const;
const text = (reply: any): string => reply.result.content[0].text;

describe('runInWorker: a bounded pool', () => {
  it('40 calls at once run on at most maxThreads threads, one call per thread at a time', async () => {
    const pool = new WorkerPool({ maxThreads: 2 });
    pools.push(pool);
    const { mcp, peak } = server(pool);
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => mcp.handle(call(i, 'busy'))));
    const threads = new Set(replies.map(text));
    expect(threads.size).toBeLessThanOrEqual(2);
    expect(peak()).toBeLessThanOrEqual(2);
    expect(pool.size).toBeLessThanOrEqual(2);
  });

  it('the default pool is bounded too, and its threads have the documented resource limits', async () => {
    const { mcp, peak } = server();
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => mcp.handle(call(i, 'busy'))));
    expect(new Set(replies.map(text)).size).toBeLessThanOrEqual(8);
    expect(peak()).toBeLessThanOrEqual(8);
    const limits = JSON.parse(text(await mcp.handle(call(1, 'limits'))));
    expect(limits).toMatchObject(DEFAULT_WORKER_LIMITS);
  });

  it('a thread past its memory limit fails its call with the generic text; the pool goes on', async () => {
    const pool = new WorkerPool({ maxThreads: 1, resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 } });
    pools.push(pool);
    const { mcp, logged } = server(pool);
    const reply: any = await mcp.handle(call(1, 'hog'));
    expect(reply.result).toEqual({ content: [{ type: 'text', text: 'The tool failed' }], isError: true });
    expect(logged.join('\n')).toMatch(/The worker failed/);
    expect(Number(text(await mcp.handle(call(2, 'busy'))))).toBeGreaterThan(0);
  }, 30_000);

  it('an error the thread names UserError is an ordinary error: generic text to the client, its message to the log', async () => {
    const { mcp, logged } = server();
    const reply: any = await mcp.handle(call(1, 'userError'));
    expect(reply.result).toEqual({ content: [{ type: 'text', text: 'The tool failed' }], isError: true });
    expect(JSON.stringify(reply)).not.toContain('/srv/private');
    expect(logged.join('\n')).toContain('/srv/private/config.json');
  });

  it('a cancelled call ends its thread and frees its place; a waiting call that is cancelled never runs', async () => {
    const pool = new WorkerPool({ maxThreads: 1 });
    pools.push(pool);
    const { mcp } = server(pool);
    const first = new AbortController();
    const second = new AbortController();
    const spinning = mcp.handle(call(1, 'spin'), { signal: first.signal });
    const waiting = mcp.handle(call(2, 'spin'), { signal: second.signal });
    await new Promise((r) => setTimeout(r, 200));
    expect(pool.size).toBe(1);
    second.abort();
    first.abort();
    await Promise.all([spinning, waiting]);
    expect(Number(text(await mcp.handle(call(3, 'busy'))))).toBeGreaterThan(0);
    expect(pool.size).toBe(1);
  });

  it('by default one CPU is left to the event loop: CPUs - 1 threads, at least 1, at most 8', () => {
    // A thread per CPU let one client's CPU-bound calls take every core (docs/reliability.md, the `workers` soak).
    expect([1, 2, 3, 4, 8, 9, 16, 64].map(defaultThreads)).toEqual([1, 1, 2, 3, 7, 8, 8, 8]);
  });
});
