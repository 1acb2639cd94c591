/**
 * The real math stdio entry point (examples/math/stdio.ts, unchanged) plus a stdin tap for tests:
 * every byte this process reads on stdin is appended to `$MINIMCP_STDIN_LOG_DIR/<pid>.log`.
 * Lets a test see what an SDK client sent to each process it spawned (e.g. a probe sibling).
 */
// Static import first: the server attaches its stdin listener before the tap below, in the same
// synchronous module evaluation, so no chunk can reach the tap alone.
import '../../../examples/math/stdio.js';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.MINIMCP_STDIN_LOG_DIR;
if (dir) {
  const file = join(dir, `${process.pid}.log`);
  appendFileSync(file, '');
  process.stdin.on('data', (chunk: Buffer) => appendFileSync(file, chunk));
}
