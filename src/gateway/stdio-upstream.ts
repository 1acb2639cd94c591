/**
 * A stdio MCP server as an upstream: spawned, initialized within a bounded time, and supervised. When
 * it exits, every request in flight fails at once (-32603 to the caller) and it is started again after
 * a backoff; its stderr goes to the log line by line. Speaks the 2025 handshake (as stdio servers do),
 * or 2026 (`era: 'stateless'`).
 */
import type { ChildProcess } from 'node:child_process';
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { Backoff } from './backoff.js';
import { capabilitiesOf, initializeParams } from './handshake.js';
import { UpstreamInbound } from './inbound.js';
import { LineSplitter } from './line-splitter.js';
import { PendingRequests } from './pending.js';
import { statelessMeta, withInputRounds } from './stateless.js';
import { forwardCancel, withinTime } from './request-life.js';
import { type CallHooks, type ConnectionListener, type Upstream, type UpstreamCommon, UpstreamUnavailable } from './types.js';

export interface StdioUpstreamOptions extends UpstreamCommon {
  /** The program to run, and its arguments (no shell). */
  command: string;
  args?: readonly string[];
  /** Its environment (default: this process's); the gateway's own secrets need not be in it. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Start it again after it exits (default true). */
  restart?: boolean;
  /** The protocol family it speaks: 'handshake' (2025, `initialize`; the default) or 'stateless' (2026, `_meta` per request). */
  era?: 'handshake' | 'stateless';
}

export class StdioUpstream implements Upstream {
  readonly name: string;
  #capabilities: JsonObject = {};
  #child: ChildProcess | undefined;
  #ready: Promise<void> | undefined;
  #closed = false;
  #startedAt = 0;
  #restarts = 0;
  readonly #backoff = new Backoff();
  readonly #pending = new PendingRequests();
  readonly #inbound: UpstreamInbound;
  readonly #log: (line: string) => void;

  constructor(private readonly options: StdioUpstreamOptions) {
    this.name = options.name ?? 'upstream';
    const log = options.log ?? ((line: string) => console.error(line));
    this.#log = (line) => log(`[minimcp gateway ${this.name}] ${line}`);
    this.#inbound = new UpstreamInbound(this.#pending, this.#log);
  }

  get capabilities(): JsonObject {
    return this.#capabilities;
  }

  /** How many times the child was started again after an exit. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The running child's process id (tests kill it to watch the supervision). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    if (this.#closed) return Promise.reject(new UpstreamUnavailable(`Upstream ${this.name} is closed`));
    return (this.#ready ??= this.#launch());
  }

  listen(listener: ConnectionListener): () => void {
    return this.#inbound.listen(listener);
  }

  async request(method: string, params: JsonObject, hooks: CallHooks = {}): Promise<JsonObject> {
    await this.start();
    if (this.options.era !== 'stateless') return this.#exchange(method, params, hooks);
    return withInputRounds(this.name, method, params, hooks, (m, sent, detached) => this.#exchange(m, sent, detached ? { ...hooks, signal: undefined } : hooks));
  }

  #exchange(method: string, params: JsonObject, hooks: CallHooks): Promise<JsonObject> {
    hooks.signal?.throwIfAborted();
    const { id, answer } = this.#pending.open(hooks);
    const sent = this.options.era === 'stateless' ? statelessMeta(params, id, hooks) : { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), progressToken: id } };
    this.#write({ jsonrpc: '2.0', id, method, params: sent });
    return forwardCancel(answer, id, hooks.signal, this.#pending, (n) => this.#write(n));
  }

  async close(): Promise<void> {
    this.#closed = true;
    const child = this.#child;
    this.#pending.failAll(`Upstream ${this.name} closed`);
    if (child === undefined || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.stdin?.end();
      const kill = setTimeout(() => child.kill('SIGKILL'), 2_000);
      kill.unref();
      child.kill('SIGTERM');
    });
  }

  /** A request of the gateway's own, whose answer (or failure) matters to no caller. */
  #send(method: string, params: JsonObject): void {
    const { id, answer } = this.#pending.open({});
    answer.catch(() => {});
    this.#write({ jsonrpc: '2.0', id, method, params });
  }

  #write(message: JsonObject): void {
    const stdin = this.#child?.stdin;
    if (stdin?.writable) stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Spawns the child and initializes it; rejects (and kills it) when that takes longer than the start bound. */
  async #launch(): Promise<void> {
    // Imported here, not at the top: a bundle of the core for a runtime without processes (Workers) must still load.
    const { spawn } = await import('node:child_process');
    const child = this.#spawn(spawn);
    try {
      const stateless = this.options.era === 'stateless';
      const { id, answer } = this.#pending.open({});
      const [method, params] = stateless ? ['server/discover', statelessMeta({}, id, {})] : ['initialize', initializeParams()];
      this.#write({ jsonrpc: '2.0', id, method, params });
      const result = await withinTime(answer, this.options.startTimeoutMs ?? 10_000, `Upstream ${this.name} did not start`);
      this.#capabilities = capabilitiesOf(result);
      if (stateless) return;
      this.#write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      // Everything is asked for: each caller's own log level filters what reaches it.
      if (isObject(this.#capabilities.logging)) this.#send('logging/setLevel', { level: 'debug' });
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }

  #spawn(spawn: typeof import('node:child_process').spawn): ChildProcess {
    const { command, args = [], env, cwd, maxMessageBytes = 4 * 1_048_576 } = this.options;
    const child = spawn(command, [...args], { cwd, env: env === undefined ? process.env : (env as NodeJS.ProcessEnv), stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child = child;
    this.#startedAt = Date.now();
    const reply = (message: JsonObject) => this.#write(message);
    const lines = new LineSplitter(maxMessageBytes, (line) => this.#line(line, reply), () => this.#oversized(maxMessageBytes));
    child.stdout?.on('data', (chunk: Buffer) => lines.push(chunk));
    const errors = new LineSplitter(65_536, (line) => this.#log(line), () => this.#log('(a stderr line over 64 KiB was cut)'));
    child.stderr?.on('data', (chunk: Buffer) => errors.push(chunk));
    child.stdin?.on('error', () => {}); // EPIPE after a crash: the exit handler reports it
    child.once('error', (error) => this.#log(`could not run ${command}: ${error.message}`));
    child.once('close', (code, signal) => this.#exited(child, code, signal));
    return child;
  }

  #line(line: string, reply: (message: JsonObject) => void): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#log(`stdout line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (isObject(message)) this.#inbound.receive(message, reply);
  }

  #oversized(limit: number): void {
    this.#log(`a message over ${limit} bytes was dropped`);
    // Its request cannot be named from a line that was never parsed; the only one in flight is it.
    const sole = this.#pending.size === 1;
    if (sole) this.#pending.failAll(`Upstream ${this.name} answered with more than ${limit} bytes`);
  }

  #exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    this.#pending.failAll(`Upstream ${this.name} stopped`);
    if (this.#closed) return;
    this.#log(`exited (${signal ?? `code ${code}`})`);
    this.#ready = undefined;
    if (this.options.restart === false) return;
    const delay = this.#backoff.next(Date.now() - this.#startedAt);
    const timer = setTimeout(() => this.#relaunch(), delay);
    timer.unref();
  }

  #relaunch(): void {
    if (this.#closed || this.#ready !== undefined) return;
    this.#restarts++;
    this.start().then(
      // Its lists may differ from the last run's: the mirror reads them again.
      () => this.#inbound.announce('gateway/restarted'),
      (error: unknown) => this.#log(`restart failed: ${(error as Error).message}`),
    );
  }
}
