/**
 * An SSE answer goes out in as few writes as its timing allows: over node:http what one turn of the
 * event loop writes leaves in one system call, over the fetch handler in one chunk; and a stream that
 * stays open still delivers each event at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createNodeHandler } from '../../src/transports/http/node.js';
import { createFetchHandler } from '../../src/transports/http/fetch-handler.js';
import { newStreamId } from '../../src/state/replay.js';
import { progressCall, progressServer } from '../support/progress-server.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Serves `mcp` and counts the socket writes (each one system call) of every response. */
async function serveCounting(mcp: MiniMCP) {
  const handler = createNodeHandler(mcp);
  const writes: number[] = [];
  server = createServer((req, res) => {
    const socket = res.socket as unknown as { _writeGeneric: (...args: unknown[]) => unknown };
    const original = socket._writeGeneric;
    const index = writes.push(0) - 1;
    socket._writeGeneric = function (this: unknown, ...args: unknown[]) {
      writes[index]!++;
      return original.apply(this, args);
    };
    handler(req, res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/mcp`;
  return { url, writes };
}

describe('SSE writes over node:http', () => {
  it('a tool that reports progress and returns without waiting for I/O is answered in one write (status line, priming event, progress, reply, last chunk)', async () => {
    // `quick` is async: it finishes a few microtasks later, after node's own cork (one tick) has let go.
    const { mcp } = progressServer();
    const { url, writes } = await serveCounting(mcp);
    const res = await fetch(progressCall('quick', url));
    const body = await res.text();
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(body.match(/^id: [0-9a-f]{32}-\d+$/gm)).toHaveLength(3); // priming, progress, reply
    expect(body).toContain('"method":"notifications/progress"');
    expect(body).toContain('"text":"ok"');
    expect(writes).toEqual([1]);
  });

  it('a stream that stays open delivers its progress before the tool returns', async () => {
    const { mcp, release } = progressServer();
    const { url } = await serveCounting(mcp);
    const res = await fetch(progressCall('slow', url));
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes('notifications/progress')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before its progress: ${seen}`);
      seen += decoder.decode(value, { stream: true });
    }
    release();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) seen += decoder.decode(chunk.value, { stream: true });
    expect(seen).toContain('"text":"done"');
  });
});

describe('SSE chunks over the fetch handler', () => {
  async function chunksOf(response: Response): Promise<string[]> {
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    const reader = response.body!.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) chunks.push(decoder.decode(chunk.value));
    return chunks;
  }

  it('a tool that reports progress and returns without waiting for I/O is one chunk', async () => {
    const { mcp } = progressServer();
    const response = await createFetchHandler(mcp)(progressCall('quick'));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const chunks = await chunksOf(response);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.match(/^id: [0-9a-f]{32}-\d+$/gm)).toHaveLength(3);
    expect(chunks[0]).toContain('"text":"ok"');
  });

  it('a stream that stays open delivers its progress before the tool returns', async () => {
    const { mcp, release } = progressServer();
    const response = await createFetchHandler(mcp)(progressCall('slow'));
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('notifications/progress');
    release();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toContain('"text":"done"');
  });
});

describe('stream ids', () => {
  it('are 128 random bits in hex, all different across several refills of the random pool', () => {
    const ids = Array.from({ length: 1_000 }, newStreamId); // 256 ids per pool
    expect(ids.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // Every digit shows up in every position over 1,000 ids (a stuck nibble would not).
    for (let position = 0; position < 32; position++) expect(new Set(ids.map((id) => id[position])).size).toBe(16);
  });
});
