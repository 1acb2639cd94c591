/**
 * `minimcp dev`: one stable address for the playground and the MCP endpoint, in front of a child
 * process that runs the user's module. A file change replaces the child; the page stays on the same
 * address and hears about it on an event stream, so it reconnects by itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ChildMessage } from './child.js';
import type { LoadError } from './code-frame.js';

export interface DevOptions {
  /** The user's server module. */
  file: string;
  port?: number;
  host?: string;
  /** Where progress goes (default: the terminal). */
  print?: (line: string) => void;
}

export interface DevServer {
  readonly url: string;
  close(): Promise<void>;
}

type Status =
  | { state: 'loading'; generation: number }
  | { state: 'ready'; generation: number; reloadMs?: number }
  | { state: 'error'; generation: number; error: LoadError };

const HERE = dirname(fileURLToPath(import.meta.url));
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const CHILD = join(HERE, FROM_SOURCE ? 'child.ts' : 'child.js');
const PLAYGROUND = join(HERE, 'playground.html');
const IGNORED = /(^|[\\/])(node_modules|\.git|dist|coverage)([\\/]|$)|(^|[\\/])\.[^\\/]*$/;

/** tsx for TypeScript modules: from the user's project first, then next to minimcp itself. */
function findTsx(file: string): string | undefined {
  for (const base of [file, join(process.cwd(), 'noop.js'), fileURLToPath(import.meta.url)]) {
    try {
      return pathToFileURL(createRequire(base).resolve('tsx')).href;
    } catch {
      // not installed there
    }
  }
  return undefined;
}

const needsTypeScript = (file: string): boolean => /^\.[cm]?tsx?$/.test(extname(file)) || FROM_SOURCE;

export async function startDev(options: DevOptions): Promise<DevServer> {
  const file = resolve(options.file);
  const print = options.print ?? ((line: string) => console.log(line));
  if (!existsSync(file)) throw new Error(`minimcp dev: no such file ${file}`);
  const tsx = needsTypeScript(file) ? findTsx(file) : undefined;
  if (needsTypeScript(file) && tsx === undefined) {
    throw new Error('minimcp dev runs TypeScript through tsx, which is not installed here. Install it: npm install -D tsx');
  }
  const page = readFileSync(PLAYGROUND);

  let status: Status = { state: 'loading', generation: 0 };
  let child: ChildProcess | undefined;
  let target: { port: number; path: string } | undefined;
  let changedAt: number | undefined;
  const watchers = new Set<ServerResponse>();
  const waiting: (() => void)[] = [];

  const publish = (next: Status): void => {
    status = next;
    const frame = `data: ${JSON.stringify(status)}\n\n`;
    for (const res of watchers) res.write(frame);
    if (next.state !== 'loading') for (const wake of waiting.splice(0)) wake();
  };

  const spawnChild = (): ChildProcess =>
    spawn(process.execPath, [...(tsx ? ['--import', tsx] : []), '--enable-source-maps', CHILD], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, MINIMCP_DEV_URL: `${url}mcp` },
    });
  // The next child, started ahead and idle until a restart needs it.
  let spare: ChildProcess | undefined;

  const start = (): void => {
    const generation = status.generation + 1;
    target = undefined;
    publish({ state: 'loading', generation });
    const proc = spare !== undefined && spare.exitCode === null && spare.signalCode === null ? spare : spawnChild();
    spare = undefined;
    child = proc;
    proc.send({ type: 'load', file });
    proc.on('message', (message: ChildMessage) => {
      if (proc !== child) return;
      if (message.type === 'ready') {
        target = { port: message.port, path: message.path };
        const reloadMs = changedAt === undefined ? undefined : Math.round(performance.now() - changedAt);
        changedAt = undefined;
        publish(reloadMs === undefined ? { state: 'ready', generation } : { state: 'ready', generation, reloadMs });
        print(reloadMs === undefined ? `minimcp dev: server ready` : `minimcp dev: reloaded in ${reloadMs} ms`);
      } else {
        const { error } = message;
        changedAt = undefined;
        publish({ state: 'error', generation, error });
        print(`minimcp dev: ${file} failed to load:\n${error.location ? `${error.location}\n` : ''}${error.message}\n${error.frame ?? ''}\nWaiting for a change...`);
      }
      // Warm the next one once this one is done loading, so the two do not compete for the CPU.
      if (!closing && spare === undefined) spare = spawnChild();
    });
    proc.on('exit', (code, signal) => {
      if (proc !== child || status.state === 'error') return;
      const message = `The server process exited (${signal ?? `code ${code}`}). Waiting for a change...`;
      publish({ state: 'error', generation, error: { message } });
      print(`minimcp dev: ${message}`);
    });
  };

  const stopChild = (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
    return new Promise((done) => {
      const force = setTimeout(() => proc.kill('SIGKILL'), 2000);
      proc.once('exit', () => {
        clearTimeout(force);
        done();
      });
      proc.kill('SIGTERM');
    });
  };

  let closing = false;
  let restartTimer: NodeJS.Timeout | undefined;
  const onChange = (_event: string, name: string | Buffer | null): void => {
    if (name !== null && IGNORED.test(String(name))) return;
    changedAt ??= performance.now();
    clearTimeout(restartTimer);
    // Editors write a file in several steps; one restart per burst.
    restartTimer = setTimeout(() => void stopChild().then(start), 30);
  };

  const server = createServer((req, res) => route(req, res));
  function route(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/mcp') return void proxy(req, res);
    if (req.method === 'GET' && path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': page.byteLength });
      return void res.end(page);
    }
    if (req.method === 'GET' && path === '/__minimcp/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(`data: ${JSON.stringify(status)}\n\n`);
      watchers.add(res);
      res.on('close', () => watchers.delete(res));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Not found. The playground is at /, the MCP endpoint at /mcp.');
  }

  /** Forwards one request to the current child, waiting through a restart. */
  async function proxy(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (status.state === 'loading' && Date.now() < deadline) await new Promise<void>((wake) => waiting.push(wake));
    if (!target) {
      const message = status.state === 'error' ? `The server failed to load: ${status.error.message}` : 'The server is not ready';
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message } }));
    }
    const query = (req.url ?? '').indexOf('?');
    const upstream = httpRequest(
      { host: '127.0.0.1', port: target.port, method: req.method, path: target.path + (query < 0 ? '' : req.url!.slice(query)), headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(res.headersSent ? undefined : JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'The server went away (restarting?)' } }));
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 3000, host, () => {
      server.off('error', fail);
      ready();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${port}/`;

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), { recursive: true }, onChange);
  } catch {
    watcher = watch(dirname(file), onChange); // platforms without recursive watching
  }
  start();
  print(`minimcp dev: playground ${url}  MCP endpoint ${url}mcp`);
  print(`minimcp dev: watching ${dirname(file)} (restarts on save)`);

  return {
    url,
    close: async () => {
      closing = true;
      clearTimeout(restartTimer);
      spare?.kill('SIGKILL');
      watcher?.close();
      await stopChild();
      for (const res of watchers) res.end();
      await closeServer(server);
    },
  };
}

const closeServer = (server: Server): Promise<void> =>
  new Promise((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
