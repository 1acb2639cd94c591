/**
 * Keeps stdout for JSON-RPC from the moment minimcp/stdio is loaded, not only from serveStdio(): a
 * server module's body runs after its imports, so its `console.log('starting')` before serveStdio()
 * reached the client as a line that is not JSON-RPC. Only when stdout is not a terminal (a client is
 * reading it); in a terminal a person's output stays where they look for it until serveStdio().
 */
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

if (stdout && !stdout.isTTY) redirect();

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
