/**
 * The bounds of the lingering close (src/transports/http/linger.ts): after the body limit the node
 * adapter reads and drops the rest before answering 413, but never waits without end for a client
 * that stalls, and never drains a declared body far past the limit.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { LINGER_BYTES } from '../../src/transports/http/linger.js';

let server: RunningServer;
beforeAll(async () => {
  server = await serve(new MiniMCP({ name: 'linger', version: '1.0.0' }), { port: 0, maxBodyBytes: 1024 });
});
afterAll(() => server.close());

/** Sends the head and `sent` bytes of a body declared `declared` bytes long, then waits (never ends). */
function stalledUpload(declared: number, sent: number): Promise<string> {
  const { hostname, port, pathname } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(answer));
    socket.write(`POST ${pathname} HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\naccept: application/json\r\ncontent-length: ${declared}\r\n\r\n`);
    socket.write(Buffer.alloc(sent, 0x61));
  });
}

describe('lingering after an over-limit body', () => {
  it('a client that stalls after passing the limit still gets its 413 (the wait is bounded), then the connection closes', async () => {
    const answer = await stalledUpload(1_000_000, 10_000);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
  });

  it('a declared body far past the limit is refused at once, unread', async () => {
    const answer = await stalledUpload(1024 + LINGER_BYTES + 1, 0);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });
});
