// The processes a local cluster needs, shared by the cluster tests (test/state/support/cluster.ts) and
// the benchmark's cluster cells (bench/scenarios/): a private redis-server on a free port (REDIS_URL
// points at an existing one instead) and nginx in front of the members with round-robin, no affinity
// and no retry on another member. Plain Node ESM with built-ins, so `node` runs it without tsx.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.mjs';

export { freePort };

/** Where a binary is (PATH, else /usr/sbin, where Debian puts nginx), or undefined. */
export function findBinary(name) {
  const found = spawnSync('sh', ['-c', `command -v ${name} || { test -x /usr/sbin/${name} && echo /usr/sbin/${name}; }`]).stdout?.toString().trim();
  return found || undefined;
}

/** The binaries a local cluster needs that this machine lacks (redis-server is not needed with REDIS_URL). */
export const missingClusterBinaries = () => [process.env.REDIS_URL ? undefined : 'redis-server', 'nginx'].filter((b) => b !== undefined && !findBinary(b));

/** Waits until `child` prints a line matching `pattern`; resolves with the match. */
export function waitFor(child, pattern, what, ms = 60_000) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start in ${ms} ms: ${seen}`)), ms);
    const onData = (chunk) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        // Started: stop collecting (a long-running child would grow `seen` without end); the
        // streams stay flowing, so the child never blocks on a full pipe.
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}): ${seen}`));
    });
  });
}

const stopChild = async (child, signal = 'SIGTERM') => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
};

/**
 * A private redis-server (no persistence) on a free port, or REDIS_URL's server (then stop() does
 * nothing). `wrap` prefixes the command (the benchmark pins it to CPUs with taskset).
 */
export async function startRedis({ wrap = [] } = {}) {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, pid: undefined, stop: async () => {} };
  const port = await freePort();
  const cmd = [...wrap, findBinary('redis-server') ?? 'redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const launch = () => spawn(cmd[0], cmd.slice(1), { stdio: 'pipe' });
  let child = launch();
  await waitFor(child, /Ready to accept connections/, 'redis-server');
  return {
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child.pid;
    },
    stop: () => stopChild(child),
    async restart() {
      await stopChild(child);
      child = launch();
      await waitFor(child, /Ready to accept connections/, 'redis-server');
    },
  };
}

/**
 * nginx on a free port, round-robin over `upstreams` (host:port), no affinity, no retry on another
 * member, no buffering (SSE passes through). `upstreamKeepalive` > 0 keeps that many idle connections
 * to the members (the benchmark; without it every request opens one). Resolves with its /mcp URL, the worker's pid (for CPU
 * figures) and stop().
 */
export async function startNginx(upstreams, { wrap = [], workerConnections = 1024, upstreamKeepalive = 0 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'minimcp-nginx-'));
  const port = await freePort();
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `${k}_temp_path ${dir}/${k};`).join('\n  ');
  writeFileSync(join(dir, 'nginx.conf'), `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${workerConnections}; }
http {
  access_log off;
  ${temp}
  upstream members {
    ${upstreams.map((u) => `server ${u};`).join(' ')}
    ${upstreamKeepalive > 0 ? `keepalive ${upstreamKeepalive};` : ''}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://members;
      # Never retried on another member (a tools/call could run twice). A member that refuses the connection is a
      # quick 502, and nginx's defaults (max_fails=1 fail_timeout=10s) then skip it, so the next requests go elsewhere.
      proxy_next_upstream off;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 300s;
    }
  }
}
`);
  const cmd = [...wrap, findBinary('nginx') ?? 'nginx', '-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'];
  const child = spawn(cmd[0], cmd.slice(1), { stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-1000)));
  const stop = async () => {
    // Graceful first; a stream left open (an SSE response nobody closed) would hold that forever.
    const fast = setTimeout(() => child.kill('SIGTERM'), 3_000);
    await stopChild(child, 'SIGQUIT');
    clearTimeout(fast);
    rmSync(dir, { recursive: true, force: true });
  };
  // nginx prints nothing when it starts well: wait until it accepts connections.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`);
    if (await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, port, pid: child.pid, stop };
}
