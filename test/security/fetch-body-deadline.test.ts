/**
 * Issue 12: the fetch handler's body-read deadline (`bodyTimeoutMs`). A client that drips its body
 * would otherwise hold a handler (and its share of the body budget) for as long as it likes. Served on
 * node:http through @hono/node-server, which hands the body over as it arrives; the client is a raw
 * socket that sends its headers and then one byte at a time.
 */
import { serve as honoServe, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { bodyBudget } from '../../src/transports/http/body-budget.js';
import { createFetchHandler, type FetchHandlerOptions } from '../../src/transports/http/fetch-handler.js';

const servers: ServerType[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
});

async function start(options: FetchHandlerOptions<unknown>): Promise<{ port: number; calls: () => number }> {
  let calls = 0;
  const mcp = new MiniMCP({ name: 'sec', version: '1', onError: () => {} });
  mcp.tool('t', {}, () => `ok ${++calls}`);
  const handle = createFetchHandler(mcp, options);
  const server = honoServe({ fetch: (request) => handle(request), port: 0, hostname: '127.0.0.1' });
  servers.push(server);
  if (!server.listening) await new Promise((r) => server.once('listening', r));
  return { port: (server.address() as AddressInfo).port, calls: () => calls };
}

const CALL = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}';

/**
 * Sends the headers, then the body one byte every `everyMs`. Resolves with what came back and whether
 * the server closed the connection: once a whole response is in, the client hangs up itself unless it
 * waits for the server to close (`waitForClose`); after 5 s it gives up either way.
 */
function drip(port: number, body: string, everyMs: number, waitForClose: boolean): Promise<{ answer: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    let answer = '';
    let sent = 0;
    let byUs = false;
    let timer: ReturnType<typeof setInterval> | undefined;
    const hangUp = (): void => {
      byUs = true;
      socket.destroy();
    };
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
          `mcp-protocol-version: 2025-11-25\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      timer = setInterval(() => {
        if (sent < body.length && socket.writable) socket.write(body[sent++]!);
      }, everyMs);
    });
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(answer)?.[1];
      const head = answer.indexOf('\r\n\r\n');
      if (!waitForClose && length !== undefined && head > 0 && Buffer.byteLength(answer) - head - 4 >= Number(length)) hangUp();
    });
    socket.on('error', () => {});
    socket.once('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ answer, closedByServer: !byUs });
    });
    const giveUp = setTimeout(hangUp, 5_000);
  });
}

describe('fetch handler: body-read deadline', () => {
  it('a body dripped slower than bodyTimeoutMs is answered 408 with a JSON-RPC error, and the connection is closed', async () => {
    const { port, calls } = await start({ bodyTimeoutMs: 300 });
    const { answer, closedByServer } = await drip(port, CALL, 50, true); // 80 bytes at 20 B/s: 4 s
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: number; message: string } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request Timeout: the body was not received in time' } });
    expect(closedByServer).toBe(true);
    expect(calls()).toBe(0);
    expect(bodyBudget.buffered).toBe(0);
  });

  it('a body that arrives within the deadline is served, and the default deadline is not in its way', async () => {
    const slow = await start({ bodyTimeoutMs: 3_000 });
    const served = await drip(slow.port, CALL, 5, false);
    expect(served.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(served.answer).toContain('ok 1');
    const byDefault = await start({});
    expect((await drip(byDefault.port, CALL, 5, false)).answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('refuses a nonsense deadline', () => {
    expect(() => createFetchHandler(new MiniMCP({ name: 'sec', version: '1' }), { bodyTimeoutMs: 0 })).toThrow(/bodyTimeoutMs must be a positive integer/);
  });
});
