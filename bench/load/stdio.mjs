/**
 * stdio load process: `node load/stdio.mjs '<json config>'`. Spawns the server with pipes, keeps
 * `concurrency` newline-delimited tools/call requests in flight over its stdin, validates every
 * reply on its stdout, and prints one JSON line of results. Config: { cmd: [file, ...args], env,
 * tool, expected, concurrency, warmupMs, durationMs, init, timeoutMs }.
 */
import { spawn } from 'node:child_process';
import { callBody, checkReply } from './validate.mjs';
import { Window } from './window.mjs';

const cfg = JSON.parse(process.argv[2]);
const child = spawn(cfg.cmd[0], cfg.cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...cfg.env } });
const win = new Window(child.pid, cfg.warmupMs, cfg.durationMs);
const started = new Map(); // id -> start time
let nextId = 1;
let out = []; // request lines written together after each batch of replies

const request = () => {
  const id = nextId++;
  started.set(id, performance.now());
  out.push(`${callBody(id, cfg.tool, false)}\n`);
};
const flush = () => {
  if (out.length) child.stdin.write(out.join(''));
  out = [];
};

let first; // resolves on the first valid reply: the server is up
const up = new Promise((resolve) => (first = resolve));
let rest = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  for (const line of lines) {
    if (!line.trim()) continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      win.error(`unparsable line: ${line.slice(0, 120)}`);
      continue;
    }
    if (msg.id === undefined || msg.id === 0) continue; // notifications; id 0 answers initialize
    const start = started.get(msg.id);
    if (start === undefined) {
      win.error(`reply to an unknown id: ${line.slice(0, 120)}`);
      continue;
    }
    started.delete(msg.id);
    const wrong = checkReply(msg, msg.id, cfg.expected);
    if (wrong) win.error(wrong);
    else win.ok(performance.now() - start);
    first();
    if (win.running) request();
  }
  flush();
});
child.on('exit', (code) => {
  if (win.running) win.error(`server exited with ${code}`);
  first();
});

// Servers that need the 2025 handshake get it once for this connection (id 0).
if (cfg.init) {
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n` +
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
  );
}
request();
flush();
await up;
for (let i = 1; i < cfg.concurrency; i++) request();
flush();

// Requests unanswered for too long count as errors (and are forgotten, so the window goes on).
const timeoutMs = cfg.timeoutMs ?? 10_000;
const sweeper = setInterval(() => {
  const now = performance.now();
  for (const [id, start] of started) {
    if (now - start < timeoutMs) continue;
    started.delete(id);
    win.error(`timeout after ${timeoutMs} ms`);
    if (win.running) request();
  }
  flush();
}, 250);

const end = await win.run();
clearInterval(sweeper);
const deadline = performance.now() + 2_000;
while (started.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
child.stdin.end();
const killer = setTimeout(() => child.kill('SIGKILL'), 2_000);
await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
clearTimeout(killer);
process.stdout.write(`${JSON.stringify(win.report(end))}\n`);
process.exit(0);
