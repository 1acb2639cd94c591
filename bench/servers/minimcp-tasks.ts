/**
 * The tasks scenario's server: MiniMCP (memory task store, one process), Streamable HTTP on
 * 127.0.0.1:$PORT/mcp. `sleep_task` must run as a task (2026 extension) and sleeps until `release`
 * is called (at most SLEEP_MS), so every task is live while the memory is read;
 * `memory` reports the heap and RSS after a full GC (run with --expose-gc) and how many sleeps are
 * running, so the load process can tell memory per live task.
 */
import { MiniMCP } from 'minimcp';
import { serve } from 'minimcp/node';

const sleepMs = Number(process.env.SLEEP_MS ?? 60_000);
let running = 0;
let wake: Array<() => void> = [];
// The cap on live tasks per principal (default 100) is raised: every bench task has the anonymous principal.
const mcp = new MiniMCP({ name: 'bench-tasks', version: '1.0.0', tasks: { maxPerPrincipal: 100_000 } });
mcp.tool('sleep_task', { task: 'required' }, async () => {
  running++;
  try {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, sleepMs);
      wake.push(() => (clearTimeout(timer), resolve()));
    });
    return 'slept';
  } finally {
    running--;
  }
});
mcp.tool('noop', {}, () => 'ok'); // the start-up probe
mcp.tool('release', {}, () => {
  const sleepers = wake;
  wake = [];
  for (const resolve of sleepers) resolve();
  return String(sleepers.length);
});
mcp.tool('memory', {}, () => {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return JSON.stringify({ heapUsed, rss, running, gc: typeof (globalThis as { gc?: unknown }).gc === 'function' });
});
await serve(mcp, { port: Number(process.env.PORT ?? 3000), host: '127.0.0.1', path: '/mcp' });
