/**
 * Events on a real cluster: three members of examples/events on one redis-server behind nginx
 * (round-robin, no affinity). The log lives in Redis Streams: a poll from any cursor is answered the
 * same by every member, and a push stream held by one member receives an event emitted on another.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterAvailable, startCluster, type Cluster } from './support/cluster.js';
import { HEADERS, sseReader } from './support/http.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/events/http.ts', import.meta.url));
const V = '2026-07-28';
const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
let nextId = 1;

function call(url: string, method: string, params: Record<string, unknown>, signal?: AbortSignal) {
  const headers: Record<string, string> = { ...HEADERS, 'mcp-protocol-version': V, 'mcp-method': method };
  if (method === 'tools/call') headers['mcp-name'] = String(params.name);
  return fetch(url, { method: 'POST', headers, signal, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } }) });
}

async function result(url: string, method: string, params: Record<string, unknown>): Promise<any> {
  const body = (await (await call(url, method, params)).json()) as any;
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result;
}

describe.skipIf(!clusterAvailable())('events on 3 instances, Redis and nginx', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ instances: 3, script: EXAMPLE, env: { EVENTS_HEARTBEAT_MS: '500' } });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('polls from any cursor on any instance', async () => {
    const start = await result(cluster.url, 'events/poll', { name: 'incident.created', arguments: { service: 'db' }, cursor: null });
    const raised: string[] = [];
    for (let i = 0; i < 6; i++) {
      const service = i % 2 === 0 ? 'db' : 'web';
      const { structuredContent } = await result(cluster.url, 'tools/call', { name: 'raise_incident', arguments: { service, severity: 'low' } });
      if (service === 'db') raised.push(structuredContent.eventId);
    }
    const answers = await Promise.all(cluster.members.map((m) => result(m.url, 'events/poll', { name: 'incident.created', arguments: { service: 'db' }, cursor: start.cursor })));
    for (const answer of answers) {
      expect(answer.events.map((e: any) => e.eventId)).toEqual(raised);
      expect(answer.truncated).toBe(false);
    }
    // The cursor one member returned resumes on another: nothing again, nothing lost.
    const after = await result(cluster.members[2]!.url, 'events/poll', { name: 'incident.created', arguments: { service: 'db' }, cursor: answers[0].cursor });
    expect(after.events).toEqual([]);
  }, 30_000);

  it('a push subscriber on one instance gets an event emitted on another', async () => {
    const abort = new AbortController();
    const response = await call(cluster.members[0]!.url, 'events/stream', { name: 'incident.created', arguments: { service: 'cluster' } }, abort.signal);
    const stream = sseReader(response);
    await stream.until((text) => text.includes('notifications/events/active'));
    const { structuredContent } = await result(cluster.members[1]!.url, 'tools/call', { name: 'raise_incident', arguments: { service: 'cluster', severity: 'high' } });
    const text = await stream.until((t) => t.includes(structuredContent.eventId), 10_000);
    expect(text).toContain('"name":"incident.created"');
    abort.abort();
  }, 30_000);
});
