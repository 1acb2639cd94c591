/**
 * Finding 3: request bodies have a process-wide budget and a read deadline, and serve() runs with the
 * timeouts and connection cap a production server would choose. Real HTTP on 127.0.0.1, raw sockets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { bodyBudget } from '../../src/transports/http/body-budget.js';
import { createNodeHandler, serve, type NodeHandlerOptions } from '../../src/transports/http/node.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function start(options: NodeHandlerOptions<unknown>): Promise<number> {
  const mcp = new MiniMCP({ name: 'sec', version: '1', onError: () => {} });
  mcp.tool('t', {}, () => 'ok');
  const server = createServer(createNodeHandler(mcp, options));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** A raw upload that declares `declared` bytes and sends `sent` of them; collects what comes back. */
function upload(port: number, declared: number, sent: number): Promise<{ socket: Socket; answer: () => string; closed: Promise<void> }> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json\r\ncontent-length: ${declared}\r\n\r\n`);
      socket.write(Buffer.alloc(sent, 0x20), () => resolve({ socket, answer: () => answer, closed }));
    });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('data', (d) => (answer += d.toString('utf8')));
    socket.on('error', () => {});
  });
}

const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
};

describe('buffered request bodies', () => {
  it('past the process-wide budget an upload is refused with 503 and Retry-After, and the budget is given back', async () => {
    const port = await start({ maxBufferedBytes: 1024 * 1024 });
    const first = await upload(port, 900_000, 800_000);
    await until(() => bodyBudget.buffered >= 800_000);
    const second = await upload(port, 900_000, 800_000);
    await until(() => second.answer().length > 0);
    expect(second.answer()).toMatch(/^HTTP\/1\.1 503 /);
    expect(second.answer()).toMatch(/retry-after: 1\r\n/i);
    expect(first.answer()).toBe(''); // the first is still being read
    first.socket.destroy();
    await until(() => bodyBudget.buffered === 0);
    expect(bodyBudget.buffered).toBe(0);
  });

  it('a body still arriving after bodyTimeoutMs is answered 408 and its connection closed', async () => {
    const port = await start({ bodyTimeoutMs: 200 });
    const slow = await upload(port, 1_000, 10); // the rest never comes
    await slow.closed;
    expect(slow.answer()).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyBudget.buffered).toBe(0);
  });
});

describe('serve() limits', () => {
  it('runs with a request timeout, a headers timeout, a keep-alive timeout and a connection cap', async () => {
    const running = await serve(new MiniMCP({ name: 'sec', version: '1' }));
    try {
      expect(running.server.requestTimeout).toBe(60_000);
      expect(running.server.headersTimeout).toBe(15_000);
      expect(running.server.keepAliveTimeout).toBe(5_000);
      expect(running.server.maxConnections).toBe(2_048);
    } finally {
      await running.close();
    }
  });

  it('takes other values, and refuses nonsense', async () => {
    const running = await serve(new MiniMCP({ name: 'sec', version: '1' }), { requestTimeoutMs: 10_000, headersTimeoutMs: 20_000, maxConnections: 10 });
    try {
      expect([running.server.requestTimeout, running.server.headersTimeout, running.server.maxConnections]).toEqual([10_000, 10_000, 10]);
    } finally {
      await running.close();
    }
    await expect(serve(new MiniMCP({ name: 'sec', version: '1' }), { maxConnections: 0 })).rejects.toThrow(/maxConnections must be a positive integer/);
  });
});
