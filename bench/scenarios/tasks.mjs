/**
 * Issue 14: 1,000 concurrent 2026 tasks in one process with the memory task store. A tool with
 * `task: 'required'` sleeps until the load process, having created them all and read the memory,
 * releases them (so all are live at once, however slow the machine); every task must end `completed`
 * with its result. Memory: the heap (after a full GC) and RSS
 * while they all sleep, minus before, per live task; and the heap the finished records keep (until
 * their TTL), per task.
 */
import { spawn } from 'node:child_process';
import { probe } from '../lib/probe.mjs';
import { HEADERS } from '../targets.mjs';

const SERVER = 'results/tmp/build/bench/servers/minimcp-tasks.js';

async function run({ args, here, pinned, freePort, runLoad }) {
  const tasks = Number(args.tasks ?? 1000);
  const sleepMs = 60_000; // the longest a task sleeps if never released
  const port = await freePort();
  const cmd = pinned(1, [process.execPath, '--expose-gc', `${here}${SERVER}`]);
  const child = spawn(cmd[0], cmd.slice(1), { env: { ...process.env, PORT: String(port), SLEEP_MS: String(sleepMs) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-1000)));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const up = await probe({ port, path: '/mcp', headers: HEADERS, tool: 'noop', expected: 'ok', retryMs: 20, timeoutMs: 20_000 });
    if (!up.ok) return { failed: `server did not start: ${up.error} ${stderr}` };
    const r = await runLoad('tasks.mjs', { port, tasks, warmup: 20, concurrency: 64, pollMs: 250, timeoutMs: 60_000 });
    return r;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const kib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KiB` : '-');
const mib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : '-');

function render(r) {
  const m = r.memory;
  const lines = [
    `${r.tasks} tasks of a \`task: 'required'\` tool that sleeps until all are created and the memory is read (2026 extension, memory store, one process${r.gc ? ', heap read after a full GC' : ', **no GC before reading: start the server with --expose-gc**'}).`,
    '',
    '| | value |',
    '|---|---:|',
    `| created | ${r.created} of ${r.tasks} in ${Math.round(r.createMs)} ms |`,
    `| running when memory was read | ${r.liveAtMeasure} (then ${r.released} released) |`,
    `| completed with their result / failed / other / not finished | ${r.completed} / ${r.failed} / ${r.other} / ${r.timedOut} |`,
    `| all seen terminal (tasks/get every 250 ms) after | ${Math.round(r.allDoneMs)} ms from the first creation |`,
    `| heap before → with all live → after all finished | ${mib(m?.before.heapUsed)} → ${mib(m?.live.heapUsed)} → ${mib(m?.after.heapUsed)} |`,
    `| RSS before → with all live → after all finished | ${mib(m?.before.rss)} → ${mib(m?.live.rss)} → ${mib(m?.after.rss)} |`,
    `| **heap per live task** | **${kib(r.heapPerLiveTask)}** |`,
    `| RSS per live task | ${kib(r.rssPerLiveTask)} |`,
    `| heap per finished task record (kept until its TTL) | ${kib(r.heapPerFinishedRecord)} |`,
  ];
  if (r.errorSamples?.length) lines.push('', `Errors: ${r.errorSamples.join(' | ')}`);
  return `${lines.join('\n')}\n`;
}

export const tasksScenario = { name: 'tasks', title: 'Tasks: 1,000 concurrent tasks, memory per live task', run, render };
