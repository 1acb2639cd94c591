/** What the bench runners share to start processes: a free port, CPU pinning, and the load processes. */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const LOAD_DIR = fileURLToPath(new URL('../load/', import.meta.url));

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** `pinned(cpu, cmd)`: the command run on that CPU (with taskset) when `pin` is on, as it is otherwise. */
export const pinning = (pin) => (cpu, cmd) => (pin ? ['taskset', '-c', String(cpu), ...cmd] : cmd);

/** Runs a bench/load/*.mjs process (on CPU 0 through `pinned`) and parses the JSON line it prints. */
export function runLoad(pinned, script, config) {
  return new Promise((resolve) => {
    const cmd = pinned(0, [process.execPath, `${LOAD_DIR}${script}`, JSON.stringify(config)]);
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err = (err + d).slice(-2000)));
    child.on('exit', () => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch {
        resolve({ failed: `load process failed: ${err.trim().slice(-500)}` });
      }
    });
  });
}
