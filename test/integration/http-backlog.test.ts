/**
 * SSE backpressure: a client that never reads its stream must not make the server buffer without
 * end. Past maxStreamBacklogBytes the stream is closed, the handler cancelled and a line logged.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createFetchHandler } from '../../src/transports/http/fetch-handler.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';

const BOUND = 256 * 1024;

/** A tool that sends 10 KB notifications until it is cancelled (or 40 MB went out); reports how it ended. */
function floodServer() {
  let ended!: (how: string) => void;
  const outcome = new Promise<string>((resolve) => (ended = resolve));
  const mcp = new MiniMCP({ name: 'backlog', version: '1.0.0', onError: () => {} });
  mcp.tool('flood', {}, async (_args, ctx) => {
    const data = 'x'.repeat(10_000);
    for (let i = 0; i < 4000; i++) {
      if (ctx.signal.aborted) return void ended(`cancelled after ${i} notifications`);
      ctx.notify('notifications/message', { level: 'info', data });
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    ended('sent everything');
    return 'done';
  });
  return { mcp, outcome };
}

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'flood', arguments: {} } });

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('a client that never reads its SSE stream', () => {
  it('node: the stream is closed past maxStreamBacklogBytes, the handler cancelled, a line logged', async () => {
    const { mcp, outcome } = floodServer();
    const logged: string[] = [];
    running = await serve(mcp, { port: 0, maxStreamBacklogBytes: BOUND, onError: (e) => void logged.push(String((e as Error).message)) });
    const { hostname, port, pathname } = new URL(running.url);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => {});
    socket.write(`POST ${pathname} HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\ncontent-length: ${CALL.length}\r\n\r\n${CALL}`);
    socket.pause(); // never reads
    expect(await outcome).toMatch(/^cancelled after \d+ notifications$/);
    expect(logged).toEqual([expect.stringMatching(/SSE stream closed: its client stopped reading.*maxStreamBacklogBytes/)]);
    socket.destroy();
  });

  it('fetch handler: the same, for a Response body nobody reads', async () => {
    const { mcp, outcome } = floodServer();
    const logged: string[] = [];
    const handler = createFetchHandler(mcp, { maxStreamBacklogBytes: BOUND, onError: (e) => void logged.push(String((e as Error).message)) });
    const response = await handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: CALL,
    }));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const how = await outcome;
    expect(how).toMatch(/^cancelled after \d+ notifications$/);
    expect(Number(/\d+/.exec(how)![0]) * 10_000).toBeLessThan(BOUND + 50_000); // held at most the bound (and one batch)
    expect(logged).toEqual([expect.stringMatching(/SSE stream closed: its client stopped reading/)]);
    await expect(response.body!.getReader().read()).rejects.toThrow(/SSE stream closed/);
  });
});
