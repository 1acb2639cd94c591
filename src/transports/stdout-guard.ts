/**
 * Keeps stdout for JSON-RPC, also for what a server module prints before it calls serveStdio(): its
 * body runs after its imports, so `console.log('starting'); serveStdio(mcp)` sent the client a line
 * that is not JSON-RPC. From the moment minimcp/stdio loads (when stdout is not a terminal), writes to
 * stdout are held until the first macrotask: a serveStdio() call before then sends them to stderr; if
 * none comes, they go to stdout as written, so a program that imports minimcp/stdio without serving
 * stdio (an HTTP server, a script) keeps its output, one tick late at most.
 */
import type { Writable } from 'node:stream';

type Write = typeof process.stdout.write;
type Held = [chunk: string | Uint8Array, encoding?: BufferEncoding];

const stdout: Writable | undefined = typeof process === 'object' ? process.stdout : undefined;
const original: Write | undefined = stdout ? (process.stdout.write.bind(process.stdout) as Write) : undefined;
/** Bytes already written when this module loaded (by modules evaluated before it): reported once. */
const writtenBefore = (stdout as { bytesWritten?: number } | undefined)?.bytesWritten ?? 0;
let held: Held[] | undefined;
let redirected = false;

function hold(chunk: string | Uint8Array, encoding?: BufferEncoding | ((error?: Error | null) => void), callback?: (error?: Error | null) => void): boolean {
  held?.push([chunk, typeof encoding === 'string' ? encoding : undefined]);
  const done = typeof encoding === 'function' ? encoding : callback;
  if (done) queueMicrotask(() => done(null));
  return true;
}

/** Nobody claimed stdout for JSON-RPC in time: what was held goes to stdout, in order, and writes go there again. */
function release(): void {
  if (held === undefined || !original) return;
  const chunks = held;
  held = undefined;
  if (!redirected) process.stdout.write = original;
  for (const [chunk, encoding] of chunks) original(chunk, encoding as BufferEncoding);
}

if (stdout && original && !process.stdout.isTTY) {
  held = [];
  process.stdout.write = hold as Write;
  setImmediate(release);
  process.once('exit', release);
}

/**
 * The writer for JSON-RPC on process.stdout. With `guard`, user writes (console.log included, and
 * what was held since this module loaded) go to stderr; without it, stdout is given back as it was.
 */
export function claimStdout(guard: boolean): (text: string) => void {
  if (!guard) {
    release();
    return (text) => void original?.(text);
  }
  const early = held ?? [];
  held = undefined;
  process.stdout.write = process.stderr.write.bind(process.stderr) as Write;
  redirected = true;
  for (const [chunk, encoding] of early) process.stderr.write(chunk, encoding as BufferEncoding);
  if (writtenBefore > 0) {
    process.stderr.write(`[minimcp] ${writtenBefore} bytes reached stdout before minimcp/stdio was loaded: a client reads them as a broken message (log with console.error)\n`);
  }
  return (text) => void original?.(text);
}
