/**
 * Tasks load process: `node load/tasks.mjs '<json config>'`. Against bench/servers/minimcp-tasks.ts:
 * warms up with a few tasks, reads the server's memory (after a GC), creates `tasks` 2026 tasks of
 * `sleep_task` over `concurrency` keep-alive connections, reads the memory again while they all sleep,
 * releases them, polls `tasks/get` until every one is terminal and reads the memory once more (the
 * finished records are kept until their TTL). Prints one JSON line. Config: { port, tasks, warmup, concurrency, pollMs, timeoutMs }.
 */
import { Connection, postBytes } from './http-client.mjs';
import { sseMessages } from './validate.mjs';

const cfg = JSON.parse(process.argv[2]);
const host = '127.0.0.1';
const EXT = 'io.modelcontextprotocol/tasks';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } };
const conns = Array.from({ length: cfg.concurrency }, () => new Connection(host, cfg.port));
let nextId = 1;

/** One JSON-RPC request on `conn`; resolves with the reply object, or throws what went wrong. */
function rpc(conn, method, params, name) {
  const id = nextId++;
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, 'Mcp-Name': name };
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } });
  return new Promise((resolve, reject) =>
    conn.send(postBytes(host, cfg.port, '/mcp', headers, body), (error, res) => {
      if (error) return reject(error);
      const messages = res.type.startsWith('text/event-stream') ? sseMessages(res.body) : [JSON.parse(res.body)];
      const reply = messages.find((m) => m?.id === id);
      if (!reply || reply.error) return reject(new Error(`HTTP ${res.status} ${JSON.stringify(reply?.error ?? res.body).slice(0, 160)}`));
      resolve(reply.result);
    }),
  );
}

/** Runs `work(conn, item)` over every item with the connections as workers. */
async function pool(items, work) {
  let next = 0;
  await Promise.all(conns.map(async (conn) => {
    while (next < items.length) {
      const item = items[next++];
      await work(conn, item);
    }
  }));
}

const call = async (name) => (await rpc(conns[0], 'tools/call', { name, arguments: {} }, name)).content[0].text;
const memory = async () => JSON.parse(await call('memory'));
const errors = [];
let createdAt = 0;
const noteError = (error) => errors.length < 3 && errors.push(String(error.message ?? error));

/** Creates `n` tasks; resolves with their ids. */
async function create(n) {
  const ids = [];
  await pool(Array.from({ length: n }, (_, i) => i), async (conn) => {
    try {
      const r = await rpc(conn, 'tools/call', { name: 'sleep_task', arguments: {} }, 'sleep_task');
      if (r.resultType !== 'task' || !r.taskId) throw new Error(`not a task: ${JSON.stringify(r).slice(0, 120)}`);
      ids.push(r.taskId);
    } catch (error) {
      noteError(error);
    }
  });
  createdAt = performance.now();
  return ids;
}

/** Polls until every task is terminal (or the timeout); counts how each ended. */
async function finish(ids, deadline) {
  const outcome = { completed: 0, failed: 0, other: 0, timedOut: 0 };
  let pending = ids;
  while (pending.length && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, cfg.pollMs));
    const still = [];
    await pool(pending, async (conn, taskId) => {
      try {
        const task = await rpc(conn, 'tasks/get', { taskId }, taskId);
        if (task.status === 'working') return void still.push(taskId);
        if (task.status === 'completed' && task.result?.content?.[0]?.text === 'slept') outcome.completed++;
        else if (task.status === 'failed') outcome.failed++;
        else outcome.other++;
      } catch (error) {
        noteError(error);
        still.push(taskId);
      }
    });
    pending = still;
  }
  outcome.timedOut = pending.length;
  return outcome;
}

/** Creates `n` tasks, releases them once created, and waits until they end. */
async function createAndFinish(n, deadline) {
  const ids = await create(n);
  const live = await memory();
  const released = Number(await call('release'));
  return { ids, live, released, outcome: await finish(ids, deadline) };
}

const started = performance.now();
await createAndFinish(cfg.warmup, started + cfg.timeoutMs);
const before = await memory();
const t0 = performance.now();
const { ids, live, released, outcome } = await createAndFinish(cfg.tasks, t0 + cfg.timeoutMs);
const createMs = createdAt - t0;
const allDoneMs = performance.now() - t0;
const after = await memory();
for (const c of conns) c.close();

const per = (a, b, n) => (n ? (a - b) / n : NaN);
process.stdout.write(`${JSON.stringify({
  tasks: cfg.tasks, created: ids.length, liveAtMeasure: live.running, released, ...outcome, createMs, allDoneMs, gc: before.gc,
  memory: { before, live, after },
  heapPerLiveTask: per(live.heapUsed, before.heapUsed, live.running), rssPerLiveTask: per(live.rss, before.rss, live.running),
  heapPerFinishedRecord: per(after.heapUsed, before.heapUsed, outcome.completed),
  errorSamples: errors,
})}\n`);
process.exit(0);
