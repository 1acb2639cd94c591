/**
 * Keeps stdout for JSON-RPC from the moment minimcp/stdio is loaded, not only from serveStdio(): a
 * server module's body runs after its imports, so its `console.log('starting')` before serveStdio()
 * reached the client as a line that is not JSON-RPC. Only when a client may be on the other end: stdin
 * and stdout both pipes or sockets, as an MCP client spawns a stdio server. A terminal keeps a person's
 * output where they look for it, and a module that imports minimcp/stdio but serves HTTP (stdin a
 * terminal or /dev/null) keeps its stdout; serveStdio() guards stdout in every case.
 */
import { fstatSync } from 'node:fs';

type Write = typeof process.stdout.write;

const stdout = typeof process === 'object' ? process.stdout : undefined;
const original: Write | undefined = stdout?.write.bind(stdout);
/** Bytes already written when this module loaded (by modules evaluated before it): reported once. */
const writtenBefore = stdout?.bytesWritten ?? 0;
let redirected = false;

function redirect(): void {
  if (!stdout || redirected) return;
  stdout.write = process.stderr.write.bind(process.stderr) as Write;
  redirected = true;
}

if (stdout && !stdout.isTTY && isPipe(0) && isPipe(1)) redirect();

function isPipe(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false; // no such descriptor, or a runtime without fstat
  }
}

/**
 * The writer for JSON-RPC on process.stdout. With `guard`, user writes (console.log included) go to
 * stderr; without it, stdout is given back as it was.
 */
export function claimStdout(guard: boolean): (text: string) => void {
  if (guard) {
    redirect();
    if (writtenBefore > 0) {
      process.stderr.write(`[minimcp] ${writtenBefore} bytes reached stdout before minimcp/stdio was loaded: a client reads them as a broken message (log with console.error)\n`);
    }
  } else if (redirected && stdout && original) {
    stdout.write = original;
    redirected = false;
  }
  return (text) => void original?.(text);
}
