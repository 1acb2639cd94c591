/** Push over stdio: the stream's notifications on the connection, and notifications/cancelled ends it (the final result is not required). */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createIncidentServer } from '../../examples/events/server.js';
import { serveStdio } from '../../src/transports/stdio.js';
import { handshakeLine, isHandshakeReply } from '../support/stdio-handshake.js';
import { until } from '../support/until.js';

describe('events/stream over stdio', () => {
  it('delivers, heartbeats, and stops delivering once cancelled', async () => {
    const mcp = createIncidentServer({ onError: () => {}, maxStreams: 1 }, { heartbeatMs: 50 });
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: any[] = [];
    let buffered = '';
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        if (!isHandshakeReply(message)) lines.push(message);
      }
    });
    const conn = serveStdio(mcp, { input, output, exitOnEnd: false, guardStdout: false, scope: {} });
    input.write(handshakeLine);
    const send = (message: object) => input.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 'sub-1', method: 'events/stream', params: { name: 'incident.created', arguments: {} } });
    await until(() => lines, (l) => l.some((m) => m.method === 'notifications/events/active'));
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'raise_incident', arguments: { service: 'a', severity: 'low' } } });
    await until(() => lines, (l) => l.some((m) => m.method === 'notifications/events/event') && l.some((m) => m.method === 'notifications/events/heartbeat'));
    const event = lines.find((m) => m.method === 'notifications/events/event');
    expect(event.params._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': 'sub-1' });
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'sub-1' } });
    await new Promise((r) => setTimeout(r, 100));
    const seen = lines.length;
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'raise_incident', arguments: { service: 'a', severity: 'low' } } });
    await new Promise((r) => setTimeout(r, 200));
    expect(lines.slice(seen).filter((m) => String(m.method).startsWith('notifications/events/'))).toEqual([]);
    // Its stream place is back (maxStreams is 1): a new stream opens.
    send({ jsonrpc: '2.0', id: 'sub-2', method: 'events/stream', params: { name: 'incident.created', arguments: {} } });
    await until(() => lines, (l) => l.some((m) => m.method === 'notifications/events/active' && m.params._meta['io.modelcontextprotocol/subscriptionId'] === 'sub-2'));
    await conn.close();
  });
});
