/**
 * Property-based fuzzing of the stdio transport (serveStdio over in-memory streams) with the
 * conformance fixture: mutated messages of both eras written as raw bytes (invalid UTF-8, truncation,
 * NUL and CR bytes, over-long lines). Each case is followed, on the same stream, by a valid tools/call
 * (the sentinel), which must succeed: one malformed line never harms the next.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createConformanceFixture } from '../../examples/conformance/fixture.js';
import { guardFuzzFile, SIMPLE_TEXT } from './support/harness.js';
import { byteOpArb, caseArb, caseText, mutateBytes, type ByteOp } from './support/messages.js';
import {
  checkReply, expectationOf, knownBugOf, parse, pollution, runs, seed, short, Tally, type Expectation,
} from './support/oracle.js';
import { stdioPeer } from './support/stdio-peer.js';

const guard = guardFuzzFile();

const decoder = new TextDecoder('utf-8', { fatal: true });
const setImmediateP = () => new Promise((r) => setImmediate(r));

/** What the server must make of one line, computed the way errors.md says (not the way stdio.ts does it). */
function lineExpectation(bytes: Uint8Array, maxLineBytes: number): { expected: Expectation; message: unknown; text: string } {
  if (bytes.length > maxLineBytes) return { expected: { replies: 1, id: null }, message: undefined, text: '' };
  let line = bytes;
  if (line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
  let text: string;
  try {
    text = decoder.decode(line);
  } catch {
    return { expected: { replies: 1, id: null }, message: undefined, text: '' };
  }
  if (text.trim() === '') return { expected: { replies: 0 }, message: undefined, text };
  const parsed = parse(text);
  return { expected: expectationOf(parsed), message: parsed.ok ? parsed.value : undefined, text };
}

const stdioCase = fc.record({
  c: caseArb,
  bytes: fc.oneof({ weight: 3, arbitrary: fc.constant<ByteOp[]>([]) }, { weight: 1, arbitrary: fc.array(byteOpArb, { minLength: 1, maxLength: 3 }) }),
});

async function fuzzStdio(name: string, numRuns: number, maxLineBytes: number) {
  const mcp = createConformanceFixture({ stepDelayMs: 1 });
  const peer = stdioPeer(mcp, maxLineBytes);
  const tally = new Tally(name);
  const started = performance.now();
  let n = 0;
  await fc.assert(
    fc.asyncProperty(stdioCase, async ({ c, bytes: byteOps }) => {
      const problems: string[] = [];
      let bytes = mutateBytes(Buffer.from(caseText(c), 'utf8'), byteOps);
      bytes = Buffer.from(bytes).map((b) => (b === 0x0a ? 0x20 : b)); // one case is one line
      const { expected, message, text } = lineExpectation(bytes, maxLineBytes);
      const sentinel = `sentinel-${n++}`;
      const probe = { jsonrpc: '2.0', id: sentinel, method: 'tools/call', params: { name: 'test_simple_text', arguments: {} } };
      tally.cases++;
      peer.write(Buffer.concat([bytes, Buffer.from(`\n${JSON.stringify(probe)}\n`)]));
      const probeReply = (await peer.take(sentinel, 5_000)) as Record<string, any> | undefined;
      if (probeReply?.result?.content?.[0]?.text !== SIMPLE_TEXT) problems.push(`the sentinel after the case failed: ${short(probeReply)}`);
      await setImmediateP();
      let reply: Record<string, unknown> | undefined;
      if (expected.replies === 1) {
        const m = message as Record<string, unknown> | undefined;
        if (m?.method === 'subscriptions/listen' && expected.id !== null) {
          // A listen stream runs until the client cancels it; then it gets its one reply.
          setTimeout(() => peer.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: expected.id } })}\n`), 20);
        }
        reply = await peer.take(expected.id, 5_000);
        if (reply === undefined) tally.hangs++;
      }
      await setImmediateP();
      const extra = peer.replies.splice(0);
      if (reply) tally.replies++;
      else tally.silent++;
      if (reply && typeof reply.error === 'object' && reply.error) tally.code((reply.error as { code?: unknown }).code);
      const found = [...checkReply(reply, expected, text, message), ...extra.map((r) => `an extra reply: ${short(r)}`)];
      if (expected.replies === 0 && extra.length) found.push('a notification or blank line was answered');
      if (found.length) {
        const bug = knownBugOf(message);
        if (bug) tally.bug(bug);
        else problems.push(...found);
      }
      if (peer.garbage.length) problems.push(`non-JSON-RPC output on stdout: ${peer.garbage.splice(0).join(' | ')}`);
      if (guard.errors.length) problems.push(`unhandled: ${guard.errors.map(String).join('; ')}`);
      problems.push(...pollution());
      if (problems.length) throw new Error(`${problems.join('\n')}\nline: ${Buffer.from(bytes).toString('utf8').slice(0, 400)}`);
    }),
    { numRuns, seed: seed(), endOnFailure: true },
  );
  await peer.close();
  tally.print(performance.now() - started);
  console.info(`[fuzz] ${name}: ${peer.notifications} notifications and ${peer.serverRequests} server requests seen, ${guard.serverLogLines()} server log lines so far`);
  return tally;
}

describe('stdio fuzz', () => {
  it('raw lines (default 4 MiB line limit): one answer per request, none per notification, the stream keeps going', async () => {
    const tally = await fuzzStdio('stdio', runs(700, 1 / 2), 4 * 1024 * 1024);
    expect(tally.hangs).toBe(0);
  });

  it('raw lines with a 64 KiB line limit (huge values become over-long lines)', async () => {
    const tally = await fuzzStdio('stdio(64KiB lines)', runs(250, 1 / 5), 64 * 1024);
    expect(tally.hangs).toBe(0);
  });
});
