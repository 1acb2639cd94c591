/** minimcp/testing: createTestClient lists, polls and streams events in process, in both eras. */
import { describe, expect, it } from 'vitest';
import { createIncidentServer } from '../../examples/events/server.js';
import { createTestClient, type TestEra } from '../../src/testing/index.js';
import { until } from '../support/until.js';

describe.each(['2025-11-25', '2026-07-28'] as TestEra[])('createTestClient and events (%s)', (era) => {
  it('lists, polls from a cursor, streams, and closing the stream releases its place', async () => {
    const mcp = createIncidentServer({ onError: () => {}, maxStreams: 1 }, { heartbeatMs: 20 });
    const client = createTestClient(mcp, { era, scope: {} });
    expect((await client.listEvents()).map((e) => e.name)).toEqual(['incident.created']);
    const start = await client.pollEvents('incident.created', { service: 'db' });
    const stream = await client.streamEvents('incident.created', { service: 'db' });
    const { structuredContent } = await client.callTool<{ eventId: string }>('raise_incident', { service: 'db', severity: 'low' });
    const polled = await client.pollEvents('incident.created', { service: 'db' }, start.cursor as string);
    expect((polled.events as any[]).map((e) => e.eventId)).toEqual([structuredContent!.eventId]);
    await until(() => stream.events, (events) => events.length === 1);
    expect(stream.events[0]).toMatchObject({ eventId: structuredContent!.eventId, cursor: expect.any(String) });
    await until(() => stream.notifications, (n) => n.some((x) => x.method === 'notifications/events/heartbeat'));
    await stream.close();
    const again = await client.streamEvents('incident.created'); // maxStreams is 1: the first gave its place back
    await again.close();
    await expect(client.streamEvents('incident.created', { service: 1 })).rejects.toMatchObject({ code: -32602 });
  });
});
