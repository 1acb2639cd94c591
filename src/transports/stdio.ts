/**
 * stdio transport: newline-delimited UTF-8 JSON-RPC on stdin/stdout. Every message is handled
 * concurrently; stdout carries only JSON-RPC (user output is sent to stderr); bad bytes are answered
 * and the stream goes on; at EOF in-flight work gets a bounded grace period.
 */
import type { Readable, Writable } from 'node:stream';
import { notificationOf } from '../bus.js';
import { Cancellation } from '../context/cancellation.js';
import { ROUTE, type Connection, type Outcome, type Send } from '../core.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { errorResponse, serializeMessage, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import { VIEW, connectionCaller } from '../primitives/visibility.js';
import type { MiniMCP } from '../server.js';

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

export function serveStdio<Scope>(mcp: MiniMCP<Scope>, options: StdioOptions<Scope> = {}): StdioConnection {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxLineBytes = options.maxLineBytes ?? 4 * 1024 * 1024;
  const grace = options.shutdownGraceMs ?? 5_000;
  const out = batchWrites(guardStdout(output, options.guardStdout ?? output === process.stdout));
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const connection: Connection = { id: `\u0000stdio-${++streams}` };
  const shutdown = new Cancellation(); // every in-flight request listens to it: a light signal
  let active = 0;
  let drained: (() => void) | undefined;
  const finished = (): void => {
    if (--active === 0) drained?.();
  };

  const send: Send = (message: JsonRpcMessage) => {
    const text = serializeMessage(message);
    if (text !== undefined) out.write(`${text}\n`);
  };
  const fail = (error: McpError): void => send(errorResponse(null, error));

  // 2025 clients (after initialize) hear changes of the lists they can see and updates of resources they subscribed to.
  const view = mcp[VIEW](connectionCaller(options.scope as Scope, connection));
  const unsubscribe = mcp.bus.subscribe((event) => {
    if (!view.concerns(event) || !connection.initialized) return;
    if (event.type === 'resources/updated' && !connection.subscriptions?.has(event.uri)) return;
    const { method, params } = notificationOf(event);
    send(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method });
  });

  const answer = ({ reply }: Outcome): void => {
    try {
      if (reply !== undefined) send(reply as unknown as JsonRpcMessage);
    } finally {
      finished(); // counted even if the write failed, so shutdown never waits for it
    }
  };

  const handleLine = (bytes: Uint8Array): void => {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return fail(new McpError(ErrorCode.ParseError, 'Parse error: the line is not valid UTF-8'));
    }
    if (text.trim() === '') return;
    active++;
    const outcome = mcp[ROUTE](text, { send, connection, scope: options.scope, signal: shutdown }, answer);
    if (outcome !== undefined) answer(outcome);
  };

  // Bytes are split on '\n' before decoding, so a multi-byte character is never cut in half.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false; // inside an over-long line: drop bytes until its newline
  const onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let nl: number;
    while ((nl = buf.indexOf(NEWLINE)) >= 0) {
      if (!skipping) {
        let line = pending.length ? Buffer.concat([...pending, buf.subarray(0, nl)]) : buf.subarray(0, nl);
        if (line.length > maxLineBytes) fail(tooLong(maxLineBytes));
        else {
          if (line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
          handleLine(line);
        }
      }
      pending = [];
      pendingBytes = 0;
      skipping = false;
      buf = buf.subarray(nl + 1);
    }
    if (skipping || buf.length === 0) return;
    pendingBytes += buf.length;
    if (pendingBytes > maxLineBytes) {
      fail(tooLong(maxLineBytes));
      pending = [];
      pendingBytes = 0;
      skipping = true;
    } else pending.push(Buffer.from(buf)); // copy: the stream may reuse its chunk
  };

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let ending = false;
  const end = async (): Promise<void> => {
    if (ending) return closed;
    ending = true;
    input.off('data', onData);
    if (pendingBytes > 0 && !skipping) handleLine(Buffer.concat(pending)); // a last line without '\n'
    const timer = setTimeout(() => shutdown.abort(new Error('shutdown')), grace);
    if (active > 0) await new Promise<void>((resolve) => (drained = resolve));
    shutdown.abort(new Error('shutdown'));
    clearTimeout(timer);
    unsubscribe();
    out.flush();
    resolveClosed();
    if (options.exitOnEnd ?? input === process.stdin) process.exit(0);
  };

  input.on('data', onData);
  input.once('end', () => void end());
  input.once('close', () => void end());
  input.once('error', () => void end());
  output.on('error', () => void end()); // the client went away (EPIPE)
  return { closed, close: end };
}

const tooLong = (limit: number): McpError =>
  new McpError(ErrorCode.InvalidRequest, `Invalid Request: the message is longer than ${limit} bytes`);

/**
 * Collects what is written in one turn of the event loop into one write: one system call for many
 * replies (stdout to a pipe is synchronous on Linux, and the call dominated the profile).
 */
function batchWrites(write: (text: string) => void): { write(text: string): void; flush(): void } {
  let queue: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (queue.length === 0) return;
    const text = queue.length === 1 ? queue[0]! : queue.join('');
    queue = [];
    write(text);
  };
  return {
    write(text) {
      queue.push(text);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

/**
 * Keeps stdout for JSON-RPC: user writes (console.log included) go to stderr; returns the writer
 * MiniMCP itself uses.
 */
function guardStdout(output: Writable, guard: boolean): (text: string) => void {
  if (!guard || output !== process.stdout) return (text) => void output.write(text);
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return (text) => void original(text);
}
