/**
 * The stdio transport under abuse: over-long lines (one answer, then the stream goes on, memory
 * bounded), binary garbage, floods, and a real server process: handlers writing to stdout, results
 * JSON cannot hold, a client that closes its end of the pipe.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { expectationOf, parse } from '../fuzz/support/oracle.js';
import { stdioPeer } from '../fuzz/support/stdio-peer.js';
import { handshakeLine, isHandshakeReply } from '../support/stdio-handshake.js';

const here = dirname(fileURLToPath(import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ping = (id: number | string) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;

function server(options: ConstructorParameters<typeof MiniMCP>[0] extends infer O ? Partial<O> : never = {}) {
  const mcp = new MiniMCP({ name: 'stdio-adv', version: '1', onError: () => {}, ...options });
  mcp.tool('slow', {}, () => sleep(100).then(() => 'ok'));
  return mcp;
}

describe('over-long lines', () => {
  it('a 5 MiB line (limit 4 MiB) gets one -32600 and the next line is served', async () => {
    const peer = stdioPeer(server());
    peer.write(Buffer.alloc(5 * 1024 * 1024, 0x61));
    peer.write(`\n${ping(1)}`);
    const reply = await peer.take(null, 5_000);
    expect(reply).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the message is longer than 4194304 bytes' } });
    expect(await peer.take(1, 5_000)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await sleep(20);
    expect(peer.replies).toEqual([]);
  });

  it('the limit is exact: maxLineBytes bytes are read, one more is refused', async () => {
    const peer = stdioPeer(server(), 64);
    const id = 'x'.repeat(64 - JSON.stringify({ jsonrpc: '2.0', id: '', method: 'ping' }).length);
    const exact = JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
    expect(Buffer.byteLength(exact)).toBe(64);
    peer.write(`${exact}\n`);
    expect(await peer.take(id, 2_000)).toMatchObject({ result: {} });
    peer.write(`${exact} \n`);
    expect(await peer.take(null, 2_000)).toMatchObject({ error: { code: -32600 } });
  });

  it('a line that never ends (64 MiB streamed in 64 KiB chunks) is refused once and memory stays bounded', async () => {
    const peer = stdioPeer(server(), 1024 * 1024);
    const chunk = Buffer.alloc(64 * 1024, 0x7b); // '{'
    const before = process.memoryUsage().rss;
    let peak = before;
    for (let i = 0; i < 1024; i++) {
      peer.write(chunk);
      if (i % 64 === 0) {
        await sleep(0);
        peak = Math.max(peak, process.memoryUsage().rss);
      }
    }
    peer.write(`\n${ping(2)}`);
    expect(await peer.take(null, 5_000)).toMatchObject({ error: { code: -32600 } });
    expect(await peer.take(2, 5_000)).toMatchObject({ result: {} });
    const growth = (peak - before) / 1024 / 1024;
    console.info(`[measure] stdio: 64 MiB line without a newline (limit 1 MiB): RSS grew ${growth.toFixed(1)} MiB at peak, one -32600 answer`);
    expect(growth).toBeLessThan(48);
    await sleep(10);
    expect(peer.replies).toEqual([]);
  });
});

describe('binary garbage', () => {
  it('random bytes: exactly one answer (id null) per non-blank line, and the stream goes on', async () => {
    const peer = stdioPeer(server());
    let state = 0x9e3779b9;
    const random = () => ((state = (state * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    const bytes = Buffer.alloc(256 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = random() < 8 ? 0x0a : random();
    // What the contract demands for each line (errors.md: not UTF-8 or not JSON -> -32700, etc.).
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let expected = 0;
    for (let line of bytes.toString('latin1').split('\n').map((l) => Buffer.from(l, 'latin1'))) {
      if (line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
      let text: string;
      try {
        text = decoder.decode(line);
      } catch {
        expected++;
        continue;
      }
      if (text.trim() === '') continue;
      const e = expectationOf(parse(text));
      if (e.replies === 1) expected++;
    }
    peer.write(bytes);
    peer.write(`\n${ping('after')}`);
    expect(await peer.take('after', 5_000)).toMatchObject({ result: {} });
    await sleep(50);
    const replies = peer.replies.splice(0);
    console.info(`[measure] stdio: 256 KiB of random bytes -> ${replies.length} error answers for ${expected} non-blank lines`);
    expect(replies.length).toBe(expected);
    for (const r of replies) expect(r).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) } });
    expect(new Set(replies.map((r) => (r.error as { code: number }).code))).toEqual(new Set([-32700]));
  });
});

describe('floods', () => {
  it('10,000 requests in one write with maxConcurrency 4: every one answered exactly once, the excess refused at once', async () => {
    const peer = stdioPeer(server({ maxConcurrency: 4, maxQueue: 16 }));
    const lines = Array.from({ length: 10_000 }, (_, i) => `${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'slow' } })}\n`).join('');
    const t0 = performance.now();
    peer.write(lines);
    const until = Date.now() + 10_000;
    while (peer.replies.length < 10_000 && Date.now() < until) await sleep(10);
    const elapsed = performance.now() - t0;
    const replies = peer.replies.splice(0);
    const ids = new Set(replies.map((r) => r.id));
    expect(ids.size).toBe(10_000);
    expect(replies).toHaveLength(10_000);
    const ok = replies.filter((r) => 'result' in r).length;
    console.info(`[measure] stdio flood: 10,000 requests answered in ${elapsed.toFixed(0)} ms (${ok} served, ${10_000 - ok} refused for overload)`);
    expect(ok).toBe(20);
  });
});

// ---- a real server process ----------------------------------------------------------------------

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function startChild(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'fixtures/stdio-server.ts')], {
    cwd: join(here, '../..'),
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdin.write(handshakeLine);
  const lines: string[] = [];
  let buffered = '';
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      lines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const waitFor = async (predicate: () => boolean, timeoutMs = 15_000) => {
    const until = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > until || child.exitCode !== null) return false;
      await sleep(5);
    }
    return true;
  };
  const replies = () => lines.map((l) => JSON.parse(l) as Record<string, any>).filter((m) => 'id' in m && !('method' in m) && !isHandshakeReply(m));
  return { child, lines, stderr: () => stderr, exited, waitFor, replies };
}

const callLine = (id: number | string, name: string, args: object = {}) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })}\n`;

describe('a real stdio server process', () => {
  it('stdout carries only JSON-RPC lines, whatever handlers print; garbage and unserialisable results do not stop it', async () => {
    const s = startChild();
    s.child.stdin.write(callLine(1, 'noisy'));
    s.child.stdin.write(Buffer.from([0xff, 0xfe, 0x00, 0x0a]));
    s.child.stdin.write(callLine(2, 'bigint'));
    s.child.stdin.write(callLine(3, 'circular'));
    s.child.stdin.write(`${'x'.repeat(5 * 1024 * 1024)}\n`);
    s.child.stdin.write(callLine(4, 'echo', { text: 'still here' }));
    expect(await s.waitFor(() => s.replies().length >= 6)).toBe(true);
    for (const line of s.lines) expect(() => JSON.parse(line)).not.toThrow(); // nothing but JSON on stdout
    const byId = new Map(s.replies().map((r) => [r.id, r]));
    expect(byId.get(1)?.result.content[0].text).toBe('noisy done');
    // Issue 26 item 7: a tool result that cannot be serialised is an isError result (it was -32603).
    expect(byId.get(2)?.result?.isError).toBe(true);
    expect(byId.get(3)?.result?.isError).toBe(true);
    expect(byId.get(4)?.result.content[0].text).toBe('still here');
    expect(s.replies().filter((r) => r.id === null).map((r) => r.error.code).sort()).toEqual([-32700, -32600].sort());
    expect(s.stderr()).toContain('a handler writing to stdout');
    expect(s.stderr()).toContain('a log line before serveStdio()');
    s.child.stdin.end();
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });

  it('exits cleanly at EOF after the grace period even with a handler that never finishes', async () => {
    const s = startChild({ SHUTDOWN_GRACE_MS: '500' });
    s.child.stdin.write(callLine(1, 'forever'));
    s.child.stdin.write(callLine(2, 'echo', { text: 'x' }));
    expect(await s.waitFor(() => s.replies().length >= 1)).toBe(true);
    const t0 = performance.now();
    s.child.stdin.end();
    expect(await s.exited).toEqual({ code: 0, signal: null });
    const waited = performance.now() - t0;
    console.info(`[measure] stdio process with a never-finishing handler exited ${waited.toFixed(0)} ms after EOF (shutdownGraceMs 500)`);
    expect(waited).toBeGreaterThanOrEqual(450);
    expect(waited).toBeLessThan(3_000);
  });

  it('a client that closes its end of stdout (EPIPE) makes the server exit, not crash', async () => {
    const s = startChild({ SLOW_MS: '100' });
    s.child.stdin.write(callLine(1, 'echo', { text: 'x' }));
    expect(await s.waitFor(() => s.replies().length >= 1)).toBe(true);
    s.child.stdout.destroy();
    for (let i = 0; i < 20; i++) s.child.stdin.write(callLine(10 + i, 'slow'));
    const result = await Promise.race([s.exited, sleep(10_000).then(() => 'still running' as const)]);
    if (result === 'still running') s.child.stdin.end();
    const exit = result === 'still running' ? await s.exited : result;
    console.info(`[measure] stdio server after its stdout was closed: ${result === 'still running' ? 'kept running until stdin ended' : 'exited by itself'} (${JSON.stringify(exit)})`);
    expect(s.stderr()).not.toMatch(/Unhandled|EPIPE.*\n\s+at /);
    expect(exit.signal).toBeNull();
  });
});
