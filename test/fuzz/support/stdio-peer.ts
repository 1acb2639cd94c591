/**
 * A stdio peer over in-memory streams: writes raw bytes as lines, reads every stdout line, answers
 * server-to-client requests with an error (so 2025 handlers never wait for a person) and sorts the rest
 * into replies and notifications.
 */
import { PassThrough } from 'node:stream';
import type { MiniMCP } from '../../../src/index.js';
import { serveStdio, type StdioConnection } from '../../../src/transports/stdio.js';
import { handshakeLine, isHandshakeReply } from '../../support/stdio-handshake.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface StdioPeer {
  readonly input: PassThrough;
  readonly connection: StdioConnection;
  /** Replies (messages with an id and no method), in arrival order; drained by the caller. */
  readonly replies: Record<string, unknown>[];
  /** Lines that were not JSON, or JSON that is neither a reply nor a server request/notification. */
  readonly garbage: string[];
  notifications: number;
  serverRequests: number;
  write(bytes: Uint8Array | string): void;
  /** Waits until a reply with this id arrived; returns it (removed from `replies`) or undefined on timeout. */
  take(id: unknown, timeoutMs: number): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

export function stdioPeer(mcp: MiniMCP, maxLineBytes?: number): StdioPeer {
  const input = new PassThrough();
  const output = new PassThrough();
  const connection = serveStdio(mcp, { input, output, exitOnEnd: false, guardStdout: false, maxLineBytes, shutdownGraceMs: 200 });
  let buffered = '';
  const peer: StdioPeer = {
    input,
    connection,
    replies: [],
    garbage: [],
    notifications: 0,
    serverRequests: 0,
    write: (bytes) => void input.write(bytes),
    async take(id, timeoutMs) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const i = peer.replies.findIndex((r) => r.id === id);
        if (i >= 0) return peer.replies.splice(i, 1)[0];
        if (Date.now() > until) return undefined;
        await sleep(1);
      }
    },
    async close() {
      input.end();
      await connection.closed;
    },
  };
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        peer.garbage.push(line.slice(0, 200));
        continue;
      }
      if (isHandshakeReply(message)) continue;
      if (!isObject(message)) peer.garbage.push(line.slice(0, 200));
      else if (typeof message.method === 'string' && 'id' in message) {
        peer.serverRequests++;
        input.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'the fuzz client declines' } })}\n`);
      } else if (typeof message.method === 'string') peer.notifications++;
      else if ('id' in message) peer.replies.push(message);
      else peer.garbage.push(line.slice(0, 200));
    }
  });
  input.write(handshakeLine);
  return peer;
}
