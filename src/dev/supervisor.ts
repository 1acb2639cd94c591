/**
 * `minimcp dev`: one stable address for the playground and the MCP endpoint, in front of a child
 * process that runs the user's module. A file change replaces the child; the page stays on the same
 * address and hears about it on an event stream, so it reconnects by itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ChildMessage } from './child.js';
import type { LoadError } from './code-frame.js';
import { admitted, devHostRule } from './host-guard.js';
import type { HostRule } from '../transports/http/origin.js';
import { listenOn } from '../transports/http/listen.js';
import { TreeWatch } from './tree-watch.js';
import { describeDevScope, parseDevScope, type DevScope } from './dev-scope.js';

export interface DevOptions {
  /** The user's server module. */
  file: string;
  port?: number;
  host?: string;
  /** Where progress goes (default: the terminal). */
  print?: (line: string) => void;
  /** `--scope`: JSON, or a module whose default export is the scope (or a function of the request). */
  scope?: string;
  /** `--watch`: more folders whose changes restart the server (a `skills/` folder beside `src/`). */
  watch?: string[];
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
  if (!existsSync(file)) throw new Error(`minimcp dev: no such file ${file}`);
  const tsx = needsTypeScript(file) ? findTsx(file) : undefined;
  if (needsTypeScript(file) && tsx === undefined) {
    throw new Error('minimcp dev runs TypeScript through tsx, which is not installed here. Install it: npm install -D tsx');
  }
  const scope = options.scope === undefined ? undefined : parseDevScope(options.scope);
  const roots = watchedRoots(dirname(file), options.watch ?? []);
  const dev = new DevSupervisor(file, tsx, options.print ?? ((line: string) => console.log(line)), scope, roots);
  await dev.listen(options.port ?? 3000, options.host ?? '127.0.0.1');
  return dev;
}

/** The module's folder and each `--watch` folder, none inside another (a nested one is watched already). */
function watchedRoots(moduleDir: string, extra: readonly string[]): string[] {
  const dirs = [moduleDir];
  for (const given of extra) {
    const dir = resolve(given);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`minimcp dev --watch: no such folder ${dir}`);
    dirs.push(dir);
  }
  const inside = (dir: string, other: string): boolean => {
    const path = relative(other, dir);
    return path !== '' && !path.startsWith('..') && !isAbsolute(path);
  };
  return [...new Set(dirs)].filter((dir, _, all) => !all.some((other) => inside(dir, other)));
}

class DevSupervisor implements DevServer {
  url = '';
  readonly #page = readFileSync(PLAYGROUND);
  readonly #server = createServer((req, res) => this.#route(req, res));
  /** Pages listening to status changes. */
  readonly #watchers = new Set<ServerResponse>();
  /** Proxied requests waiting for a restart to finish. */
  readonly #waiting: (() => void)[] = [];
  #status: Status = { state: 'loading', generation: 0 };
  #child: ChildProcess | undefined;
  /** The next child, started ahead and idle until a restart needs it. */
  #spare: ChildProcess | undefined;
  #target: { port: number; path: string } | undefined;
  /** When the change that triggered the current restart was seen (for the reload time). */
  #changedAt: number | undefined;
  #restartTimer: NodeJS.Timeout | undefined;
  #fileWatchers: TreeWatch[] = [];
  #closing = false;
  /** Who may read the playground, its events and a load error; set by listen(). */
  #hosts: HostRule = devHostRule('127.0.0.1');

  constructor(
    private readonly file: string,
    private readonly tsx: string | undefined,
    private readonly print: (line: string) => void,
    private readonly scope: DevScope | undefined,
    private readonly roots: readonly string[],
  ) {}

  async listen(port: number, host: string): Promise<void> {
    this.#hosts = devHostRule(host);
    await listenOn(this.#server, port, host, 'pick another port: minimcp dev --port N (or PORT=N)');
    const actual = (this.#server.address() as AddressInfo).port;
    const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
    this.url = `http://${shown}:${actual}/`;
    this.#fileWatchers = this.roots.map((dir) => new TreeWatch(dir, IGNORED, (path) => this.#changed(path)));
    this.#start();
    this.print(`minimcp dev: playground ${this.url}  MCP endpoint ${this.url}mcp`);
    this.print(`minimcp dev: watching ${this.roots.join(', ')} (restarts on save)`);
    if (this.scope) this.print(`minimcp dev: every request gets the scope ${describeDevScope(this.scope)}`);
  }

  async close(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#restartTimer);
    this.#spare?.kill('SIGKILL');
    for (const watcher of this.#fileWatchers) watcher.close();
    await this.#stopChild();
    for (const res of this.#watchers) res.end();
    await new Promise<void>((done) => {
      this.#server.close(() => done());
      this.#server.closeAllConnections();
    });
  }

  #publish(next: Status): void {
    this.#status = next;
    const frame = this.#frame();
    for (const res of this.#watchers) res.write(frame);
    if (next.state !== 'loading') for (const wake of this.#waiting.splice(0)) wake();
  }

  /** A file changed (`path` relative to the watched folder; ignored paths never get here). */
  /** A status event for the playground, with the scope requests get (null: none given). */
  #frame(): string {
    return `data: ${JSON.stringify({ ...this.#status, scope: this.scope ? describeDevScope(this.scope) : null })}\n\n`;
  }

  #changed(_path: string): void {
    this.#changedAt ??= performance.now();
    clearTimeout(this.#restartTimer);
    // Editors write a file in several steps; one restart per burst.
    this.#restartTimer = setTimeout(() => void this.#stopChild().then(() => this.#start()), 30);
  }

  #spawnChild(): ChildProcess {
    return spawn(process.execPath, [...(this.tsx ? ['--import', this.tsx] : []), '--enable-source-maps', CHILD], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, MINIMCP_DEV_URL: `${this.url}mcp` },
    });
  }

  #start(): void {
    const generation = this.#status.generation + 1;
    this.#target = undefined;
    this.#publish({ state: 'loading', generation });
    const spare = this.#spare;
    const proc = spare !== undefined && spare.exitCode === null && spare.signalCode === null ? spare : this.#spawnChild();
    this.#spare = undefined;
    this.#child = proc;
    proc.send(this.scope ? { type: 'load', file: this.file, scope: this.scope } : { type: 'load', file: this.file });
    proc.on('message', (message: ChildMessage) => {
      if (proc !== this.#child) return;
      this.#loaded(message, generation);
      // Warm the next one once this one is done loading, so the two do not compete for the CPU.
      if (!this.#closing && this.#spare === undefined) this.#spare = this.#spawnChild();
    });
    proc.on('exit', (code, signal) => {
      if (proc !== this.#child || this.#status.state === 'error') return;
      const message = `The server process exited (${signal ?? `code ${code}`}). Waiting for a change...`;
      this.#publish({ state: 'error', generation, error: { message } });
      this.print(`minimcp dev: ${message}`);
    });
  }

  #loaded(message: ChildMessage, generation: number): void {
    const changedAt = this.#changedAt;
    this.#changedAt = undefined;
    if (message.type === 'ready') {
      this.#target = { port: message.port, path: message.path };
      const reloadMs = changedAt === undefined ? undefined : Math.round(performance.now() - changedAt);
      this.#publish(reloadMs === undefined ? { state: 'ready', generation } : { state: 'ready', generation, reloadMs });
      this.print(reloadMs === undefined ? 'minimcp dev: server ready' : `minimcp dev: reloaded in ${reloadMs} ms`);
      return;
    }
    const { error } = message;
    this.#publish({ state: 'error', generation, error });
    const where = error.location ? `${error.location}\n` : '';
    this.print(`minimcp dev: ${this.file} failed to load:\n${where}${error.message}\n${error.frame ?? ''}\nWaiting for a change...`);
  }

  #stopChild(): Promise<void> {
    const proc = this.#child;
    this.#child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
    return new Promise((done) => {
      const force = setTimeout(() => proc.kill('SIGKILL'), 2000);
      proc.once('exit', () => {
        clearTimeout(force);
        done();
      });
      proc.kill('SIGTERM');
    });
  }

  #route(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    // A running server's /mcp applies its own rule (its dnsRebinding and cors options); the rest is ours.
    if (path === '/mcp') return void this.#proxy(req, res, '');
    // The server card (the `card` option of serve()), beside the endpoint: the playground shows it.
    if (path === '/mcp/server-card') return void this.#proxy(req, res, '/server-card');
    if (!admitted(this.#hosts, req, res)) return;
    if (req.method === 'GET' && path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': this.#page.byteLength });
      return void res.end(this.#page);
    }
    if (req.method === 'GET' && path === '/__minimcp/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(this.#frame());
      this.#watchers.add(res);
      res.on('close', () => this.#watchers.delete(res));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Not found. The playground is at /, the MCP endpoint at /mcp.');
  }

  /** Forwards one request to the current child, waiting through a restart. */
  async #proxy(req: IncomingMessage, res: ServerResponse, suffix: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (this.#status.state === 'loading' && Date.now() < deadline) await new Promise<void>((wake) => this.#waiting.push(wake));
    const target = this.#target;
    if (!target) {
      if (!admitted(this.#hosts, req, res)) return; // the reason names files and lines
      const status = this.#status;
      const message = status.state === 'error' ? `The server failed to load: ${status.error.message}` : 'The server is not ready';
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message } }));
    }
    forward(req, res, target.port, target.path + suffix);
  }
}

/** Pipes a request to the child and its answer (JSON or a live SSE stream) back. */
function forward(req: IncomingMessage, res: ServerResponse, port: number, path: string): void {
  const query = (req.url ?? '').indexOf('?');
  const upstream = httpRequest(
    { host: '127.0.0.1', port, method: req.method, path: path + (query < 0 ? '' : req.url!.slice(query)), headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (res.headersSent) return void res.end();
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'The server went away (restarting?)' } }));
  });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}
