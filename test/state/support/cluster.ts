/**
 * The cluster harness: its own redis-server on a free port (REDIS_URL points it at an existing one),
 * N instances as separate processes (test/state/support/member.ts), and nginx in front with
 * round-robin, no affinity and no retry. Without redis-server or nginx on the machine the suites
 * skip with one visible line, except under CI=true, where that is a failure.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const has = (binary: string) => spawnSync('sh', ['-c', `command -v ${binary} || test -x /usr/sbin/${binary}`]).status === 0;
const binary = (name: string) => (spawnSync('sh', ['-c', `command -v ${name}`]).stdout.toString().trim() || `/usr/sbin/${name}`);

/** Whether the cluster suites can run here; logs the one skip line, or throws under CI. */
export function clusterAvailable(): boolean {
  const missing = [process.env.REDIS_URL ? undefined : 'redis-server', 'nginx'].filter((b) => b !== undefined && !has(b));
  if (missing.length === 0) return true;
  const line = `[skip] Redis/cluster suites: ${missing.join(' and ')} not found (apt-get install -y redis-server nginx)`;
  if (process.env.CI === 'true') throw new Error(`${line}; CI=true requires them`);
  console.warn(line);
  return false;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits until `child` prints a line matching `pattern`; returns the match. */
function waitFor(child: ChildProcess, pattern: RegExp, what: string, ms = 60_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start in ${ms} ms: ${seen}`)), ms);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${seen}`)));
  });
}

export interface Redis { url: string; stop(): Promise<void>; restart?(): Promise<void> }

export async function startRedis(): Promise<Redis> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
  const port = await freePort();
  const launch = () => spawn(binary('redis-server'), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'pipe' });
  let child = launch();
  await waitFor(child, /Ready to accept connections/, 'redis-server');
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    async restart() {
      await stop();
      child = launch();
      await waitFor(child, /Ready to accept connections/, 'redis-server');
    },
  };
}

export interface Member { url: string; pid: number; child: ChildProcess; stop(): Promise<void> }

const MEMBER = fileURLToPath(new URL('./member.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url));

/** A member process: `entry` (default member.ts) must print `READY <url>`. */
export async function startMember(env: Record<string, string>, entry = MEMBER): Promise<Member> {
  const child = spawn(process.execPath, ['--import', TSX, entry], { env: { ...process.env, PORT: '0', ...env }, stdio: 'pipe' });
  const [, url] = await waitFor(child, /READY (\S+)/, 'cluster member');
  return {
    url: url!,
    pid: child.pid!,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Balancer { url: string; stop(): Promise<void> }

/** nginx, round-robin over `upstreams` (host:port), no affinity, no retry on another instance. */
export async function startNginx(upstreams: string[]): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), 'minimcp-nginx-'));
  const port = await freePort();
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `${k}_temp_path ${dir}/${k};`).join('\n  ');
  writeFileSync(join(dir, 'nginx.conf'), `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  ${temp}
  upstream members { ${upstreams.map((u) => `server ${u};`).join(' ')} }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://members;
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
  const child = spawn(binary('nginx'), ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'pipe' });
  // nginx prints nothing when it starts well: wait until it accepts connections.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode})`);
    const ok = await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error('nginx did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGQUIT');
      await exited;
    },
  };
}
