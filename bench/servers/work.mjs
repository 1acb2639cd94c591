/**
 * The three workloads, shared by every server so each does exactly the same work.
 * Tools answer a single text block; the load generators check it against EXPECTED.
 */

/** A fixed synchronous CPU loop (50k iterations of integer arithmetic). */
export function compute() {
  let x = 7;
  for (let i = 0; i < 50_000; i++) x = (x * 31 + i) % 1_000_003;
  return String(x);
}

/** Awaits a 10 ms timer: stands for a call to a database or an API. */
export const io = () => new Promise((resolve) => setTimeout(() => resolve('ok'), 10));

export const noop = () => 'ok';

/** name -> function returning the text (or a promise of it). */
export const WORK = { noop, compute, io };

/** The text each tool must answer. */
export const EXPECTED = { noop: 'ok', compute: compute(), io: 'ok' };

/** A canned CallToolResult around a text. */
export const result = (text) => ({ content: [{ type: 'text', text }] });
