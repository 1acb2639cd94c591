/**
 * Cold start: `node load/coldstart.mjs '<json config>'` spawns the server and times spawn -> first
 * correct answer to tools/call (HTTP: retried every 2 ms until the port answers; stdio: the request
 * is written at once and waits in the pipe). Prints { ms, rssKb } (memory right after that answer).
 * Config: { kind: 'http'|'stdio', cmd, env, port, path, headers, init }.
 */
import { spawn } from 'node:child_process';
import { memoryKb } from '../lib/proc.mjs';
import { probe } from '../lib/probe.mjs';
import { callBody, checkReply } from './validate.mjs';

const cfg = JSON.parse(process.argv[2]);
const env = { ...process.env, ...cfg.env, PORT: String(cfg.port ?? '') };
const t0 = performance.now();
const child = spawn(cfg.cmd[0], cfg.cmd.slice(1), { stdio: ['pipe', cfg.kind === 'stdio' ? 'pipe' : 'ignore', 'pipe'], env });
let stderr = '';
child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
const exited = new Promise((resolve) => child.once('exit', (code) => resolve({ ok: false, ms: NaN, error: `exited with ${code}: ${stderr}` })));

const answered =
  cfg.kind === 'http'
    ? probe({ port: cfg.port, path: cfg.path, headers: cfg.headers, since: t0 })
    : new Promise((resolve) => {
        let rest = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk) => {
          const lines = (rest + chunk).split('\n');
          rest = lines.pop();
          for (const line of lines) {
            const msg = JSON.parse(line);
            if (msg.id !== 1) continue;
            const wrong = checkReply(msg, 1, 'ok');
            resolve(wrong ? { ok: false, ms: NaN, error: wrong } : { ok: true, ms: performance.now() - t0 });
          }
        });
        if (cfg.init) {
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
        }
        child.stdin.write(`${callBody(1, 'noop', false)}\n`);
      });

const result = await Promise.race([answered, exited]);
let rssKb = NaN;
try {
  rssKb = memoryKb(child.pid).rssKb;
} catch {
  // already gone
}
child.kill('SIGKILL');
process.stdout.write(`${JSON.stringify({ ...result, rssKb })}\n`);
process.exit(0);
