/**
 * HTTP load process: `node load/http.mjs '<json config>'`. Keeps `concurrency` keep-alive
 * connections each with one tools/call in flight (closed loop), validates every answer, and prints
 * one JSON line of results. Config: { port, path, tool, expected, progress, headers, concurrency,
 * warmupMs, durationMs, pid (one or a list), cpuGroups ({ name: pids }, reported apart), timeoutMs }.
 */
import { Connection, postBytes } from './http-client.mjs';
import { callBody, checkHttpAnswer } from './validate.mjs';
import { Window } from './window.mjs';

const cfg = JSON.parse(process.argv[2]);
const host = '127.0.0.1';
const win = new Window(cfg.pid, cfg.warmupMs, cfg.durationMs, cfg.cpuGroups);
const timeoutMs = cfg.timeoutMs ?? 10_000;
let nextId = 1;
let inFlight = 0;

function loop(conn) {
  if (!win.running) return;
  const id = nextId++;
  const bytes = postBytes(host, cfg.port, cfg.path, cfg.headers, callBody(id, cfg.tool, cfg.progress));
  const start = performance.now();
  inFlight++;
  const timer = setTimeout(() => conn.abort(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
  conn.send(bytes, (error, res) => {
    clearTimeout(timer);
    inFlight--;
    const wrong = error
      ? error.message
      : res.status !== 200
        ? `HTTP ${res.status}: ${res.body.slice(0, 120)}`
        : checkHttpAnswer(res.body, res.type.startsWith('text/event-stream'), id, cfg.expected, cfg.progress);
    if (wrong) {
      win.error(wrong);
      // Back off briefly after a failure so a dead server is not hammered in a tight loop.
      return void setTimeout(() => loop(conn), error ? 10 : 0);
    }
    win.ok(performance.now() - start);
    loop(conn);
  });
}

const conns = Array.from({ length: cfg.concurrency }, () => new Connection(host, cfg.port));
conns.forEach(loop);
const end = await win.run();
// Let the requests in flight finish (they are not counted) so the server is idle when we leave.
const deadline = performance.now() + 2_000;
while (inFlight > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
for (const c of conns) c.close();
process.stdout.write(`${JSON.stringify(win.report(end))}\n`);
process.exit(0);
