/**
 * stdio transport: newline-delimited UTF-8 JSON-RPC on stdin/stdout. Every message is handled
 * concurrently; stdout carries only JSON-RPC (user output is sent to stderr); bad bytes are answered
 * and the stream goes on; at EOF in-flight work gets a bounded grace period.
 */
import type { Readable, Writable } from 'node:stream';
import { notificationOf, type BusEvent } from '../state/bus.js';
import { Cancellation } from '../platform/cancellation.js';
import type { Connection, MessageFacts, Outcome, OutcomeSink, Send } from '../transport.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { errorResponse, serializeMessage, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import { VIEW, connectionCaller, type ListView } from '../primitives/visibility.js';
import type { MiniMCP } from '../server.js';
import type { ScopedOptions } from './scoped-options.js';
import { claimStdout } from './stdout-guard.js';

export interface StdioOptions<Scope> {
  input?: Readable;
  output?: Writable;
  /** The longest accepted line in bytes; longer ones are answered -32600 and skipped. Default 4 MiB. */
  maxLineBytes?: number;
  /** How long in-flight handlers may run after stdin ends. Default 5 s. */
  shutdownGraceMs?: number;
  /** Send user writes to process.stdout (console.log...) to stderr, keeping stdout for JSON-RPC. Default on with process.stdout. */
  guardStdout?: boolean;
  /** Exit the process once stdin ended and work finished. Default on with process.stdin. */
  exitOnEnd?: boolean;
  /** The scope every message of this connection carries. */
  scope?: Scope;
}

export interface StdioConnection {
  /** Resolves after stdin ended and in-flight work finished (or the grace period ran out). */
  readonly closed: Promise<void>;
  /** Stops reading and finishes as at EOF. */
  close(): Promise<void>;
}

const NEWLINE = 0x0a;
/**
 * Numbers the streams served by this process: their requests are keyed by it for cancellation. The
 * NUL keeps it apart from HTTP session ids, which can never contain one.
 */
let streams = 0;

export function serveStdio<Scope>(mcp: MiniMCP<Scope>, ...options: ScopedOptions<Scope, StdioOptions<NoInfer<Scope>>>): StdioConnection;
export function serveStdio<Scope>(mcp: MiniMCP<Scope>, options: StdioOptions<Scope> = {}): StdioConnection {
  return new StdioStream(mcp, options);
}

/**
 * One stdio stream: framing, the 2025 connection, and the outcome sink of every message on it.
 * Every line shares the stream's facts and sink, so nothing is built per message.
 */
class StdioStream<Scope> implements StdioConnection, OutcomeSink {
  readonly closed: Promise<void>;
  readonly #mcp: MiniMCP<Scope>;
  readonly #input: Readable;
  readonly #maxLineBytes: number;
  readonly #grace: number;
  readonly #exitOnEnd: boolean;
  readonly #out: { write(text: string, kind: Outgoing): void; flush(): void };
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  readonly #connection: Connection = { id: `\u0000stdio-${++streams}` };
  /** Every in-flight request listens to it: a light signal. */
  readonly #shutdown = new Cancellation();
  readonly #facts: MessageFacts<Scope>;
  readonly #unsubscribe: () => void;
  /** What this connection's caller sees of each list, so list_changed reaches it only for its own lists. */
  readonly #view: ListView<Scope>;
  #active = 0;
  #drained: (() => void) | undefined;
  #resolveClosed!: () => void;
  #ending = false;
  // Bytes are split on '\n' before decoding, so a multi-byte character is never cut in half.
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Inside an over-long line: drop bytes until its newline. */
  #skipping = false;

  constructor(mcp: MiniMCP<Scope>, options: StdioOptions<Scope>) {
    this.#mcp = mcp;
    const input = (this.#input = options.input ?? process.stdin);
    const output = options.output ?? process.stdout;
    this.#maxLineBytes = options.maxLineBytes ?? 4 * 1024 * 1024;
    this.#grace = options.shutdownGraceMs ?? 5_000;
    this.#exitOnEnd = options.exitOnEnd ?? input === process.stdin;
    this.#out = batchWrites(guardStdout(output, options.guardStdout ?? output === process.stdout));
    // Not rate limited: the one client started this process and can stop it (docs/security.md).
    this.#facts = { send: this.send, connection: this.#connection, scope: options.scope, signal: this.#shutdown, requireInitialize: true, rateChecked: true };
    this.closed = new Promise<void>((resolve) => (this.#resolveClosed = resolve));
    this.#view = mcp[VIEW](connectionCaller(options.scope as Scope, this.#connection));
    this.#unsubscribe = mcp.bus.subscribe(this.#onBusEvent);
    input.on('data', this.#onData);
    const end = (): void => void this.close();
    input.once('end', end);
    input.once('close', end);
    input.once('error', end);
    output.on('error', end); // the client went away (EPIPE)
  }

  readonly send: Send = (message: JsonRpcMessage) => {
    const text = serializeMessage(message);
    if (text === undefined) return;
    const m = message as { method?: unknown; id?: unknown };
    this.#out.write(`${text}\n`, m.method === undefined ? 'reply' : m.id === undefined ? 'notification' : 'request');
  };

  /** A request's outcome, at once or later. */
  deliver({ reply }: Outcome): void {
    try {
      if (reply !== undefined) this.send(reply);
    } finally {
      if (--this.#active === 0) this.#drained?.(); // counted even if the write failed, so shutdown never waits for it
    }
  }

  /** 2025 clients (after initialize) hear changes of the lists they can see and updates of resources they subscribed to. */
  readonly #onBusEvent = (event: BusEvent): void => {
    const connection = this.#connection;
    if (!this.#view.concerns(event) || !connection.initialized) return;
    if (event.type === 'resources/updated' && !connection.subscriptions?.has(event.uri)) return;
    const { method, params } = notificationOf(event);
    this.send(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method });
  };

  #fail(error: McpError): void {
    this.send(errorResponse(null, error));
  }

  #handleLine(bytes: Uint8Array): void {
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch {
      return this.#fail(new McpError(ErrorCode.ParseError, 'Parse error: the line is not valid UTF-8'));
    }
    this.#handleText(text);
  }

  #handleText(text: string): void {
    if (text.trim() === '') return;
    this.#active++;
    const outcome = this.#mcp.route(text, this.#facts, this);
    if (outcome !== undefined) this.deliver(outcome);
  }

  readonly #onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    // The usual chunk: whole lines (and maybe the start of the next), none too long. They are decoded
    // in one go, not one Buffer view and one decode per line.
    const last = this.#pending.length === 0 && !this.#skipping ? buf.lastIndexOf(NEWLINE) : -1;
    if (last > 0 && last <= this.#maxLineBytes && this.#handleLines(buf.subarray(0, last))) buf = buf.subarray(last + 1);
    let nl: number;
    while ((nl = buf.indexOf(NEWLINE)) >= 0) {
      if (!this.#skipping) {
        let line = this.#pending.length ? Buffer.concat([...this.#pending, buf.subarray(0, nl)]) : buf.subarray(0, nl);
        if (line.length > this.#maxLineBytes) this.#fail(tooLong(this.#maxLineBytes));
        else {
          if (line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
          this.#handleLine(line);
        }
      }
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#skipping = false;
      buf = buf.subarray(nl + 1);
    }
    if (this.#skipping || buf.length === 0) return;
    this.#pendingBytes += buf.length;
    if (this.#pendingBytes > this.#maxLineBytes) {
      this.#fail(tooLong(this.#maxLineBytes));
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#skipping = true;
    } else this.#pending.push(Buffer.from(buf)); // copy: the stream may reuse its chunk
  };

  /**
   * Lines that are all valid UTF-8, handled from one decode; false (nothing handled) when some byte is
   * not, and the caller goes line by line so that only the bad line is refused. '\n' never occurs inside
   * a multi-byte character, so splitting the decoded text splits the lines exactly.
   */
  #handleLines(bytes: Uint8Array): boolean {
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch {
      return false;
    }
    for (let from = 0; from <= text.length; ) {
      const nl = text.indexOf('\n', from);
      const end = nl < 0 ? text.length : nl;
      this.#handleText(text.charCodeAt(end - 1) === 0x0d ? text.slice(from, end - 1) : text.slice(from, end));
      from = end + 1;
    }
    return true;
  }

  /** Stops reading and finishes as at EOF: in-flight work gets the grace period, then its signal fires. */
  async close(): Promise<void> {
    if (this.#ending) return this.closed;
    this.#ending = true;
    this.#input.off('data', this.#onData);
    if (this.#pendingBytes > 0 && !this.#skipping) this.#handleLine(Buffer.concat(this.#pending)); // a last line without '\n'
    const timer = setTimeout(() => this.#shutdown.abort(new Error('shutdown')), this.#grace);
    if (this.#active > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    this.#shutdown.abort(new Error('shutdown'));
    clearTimeout(timer);
    this.#unsubscribe();
    this.#out.flush();
    this.#resolveClosed();
    if (this.#exitOnEnd) process.exit(0);
  }
}

const tooLong = (limit: number): McpError =>
  new McpError(ErrorCode.InvalidRequest, `Invalid Request: the message is longer than ${limit} bytes`);

type Outgoing = 'reply' | 'notification' | 'request';

/**
 * How long after a notification a reply waits before it is written. The official SDK v1 client handles
 * a notification a microtask after reading it, and a reply read in the same chunk removes the request's
 * progress handler first: the last progress was lost (a 4-step tool showed 3 of 4). A reply written in
 * the next macrotask was still read in the same chunk by the client (test/integration/progress-last),
 * after 1 ms in 1 run of 3, after 5 or 10 ms in none. Only replies that follow a notification this
 * closely wait.
 */
const REPLY_GAP_MS = 10;

/**
 * Collects what is written in one turn of the event loop into one write: one system call for many
 * replies (stdout to a pipe is synchronous on Linux, and the call dominated the profile). A reply
 * within REPLY_GAP_MS of a notification is held until then, in a write of its own (the fast path,
 * a reply with no notification before it, is batched as before).
 */
function batchWrites(write: (text: string) => void): { write(text: string, kind: Outgoing): void; flush(): void } {
  let queue: string[] = [];
  let scheduled = false;
  let lastNotification = Number.NEGATIVE_INFINITY;
  /** Replies waiting for their gap, in order; written together when the first one's time comes. */
  let held: string[] = [];
  const writeQueue = (): void => {
    scheduled = false;
    if (queue.length === 0) return;
    const text = queue.length === 1 ? queue[0]! : queue.join('');
    queue = [];
    write(text);
  };
  const writeHeld = (): void => {
    if (held.length === 0) return;
    const text = held.join('');
    held = [];
    write(text);
  };
  return {
    write(text, kind) {
      const now = kind === 'reply' || kind === 'notification' ? performance.now() : 0;
      if (kind === 'notification') lastNotification = now;
      const wait = kind === 'reply' ? lastNotification + REPLY_GAP_MS - now : 0;
      if (wait > 0) {
        writeQueue(); // the notifications leave now
        if (held.push(text) === 1) setTimeout(writeHeld, wait);
        return;
      }
      queue.push(text);
      if (!scheduled) {
        scheduled = true;
        setImmediate(writeQueue);
      }
    },
    flush() {
      writeQueue();
      writeHeld();
    },
  };
}

/**
 * Keeps stdout for JSON-RPC: user writes (console.log included) go to stderr (from the moment this
 * module loaded, see stdout-guard.ts); returns the writer MiniMCP itself uses.
 */
function guardStdout(output: Writable, guard: boolean): (text: string) => void {
  if (output !== process.stdout) return (text) => void output.write(text);
  return claimStdout(guard);
}
