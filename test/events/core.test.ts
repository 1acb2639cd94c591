/**
 * The Events extension in process, both eras: the capability in both shapes, events/list with
 * visibility, poll from a cursor (bootstrap, replay, matching, quiet cursors that advance, maxEvents,
 * retention and truncated, forged cursors), push streams, and the named errors.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiniMCP, type Connection } from '../../src/index.js';

const V = '2026-07-28';
const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
const req = (method: string, params: Record<string, unknown> = {}, id: string | number = 1) => ({ jsonrpc: '2.0', id, method, params });

function incidents(replay: object | boolean = true) {
  const mcp = new MiniMCP<{ principal?: string; admin?: boolean }>({ name: 'ev', version: '1.0.0', onError: () => {} });
  const incident = mcp.event('incident.created', {
    description: 'An incident was opened',
    input: z.object({ service: z.string().optional() }),
    payload: z.object({ id: z.string(), service: z.string(), severity: z.enum(['low', 'high']) }),
    replay: replay as never,
  });
  mcp.event('audit.entry', {
    description: 'Admins only',
    payload: { type: 'object', properties: { line: { type: 'string' } }, required: ['line'] },
    visible: ({ scope }) => scope?.admin === true,
  });
  return { mcp, incident };
}

async function modern(mcp: MiniMCP<any>, method: string, params: Record<string, unknown> = {}, scope?: unknown) {
  return (await mcp.handle(req(method, { ...params, _meta: meta }), { scope })) as any;
}

async function legacy(mcp: MiniMCP<any>) {
  const connection: Connection = { id: 'c1' };
  const init = (await mcp.handle(req('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, 0), { connection })) as any;
  return { init: init.result, call: async (method: string, params: Record<string, unknown> = {}) => (await mcp.handle(req(method, params), { connection })) as any };
}

describe('events: capability and list', () => {
  it('declares both shapes in server/discover and initialize', async () => {
    const { mcp } = incidents();
    const discover = await modern(mcp, 'server/discover');
    expect(discover.result.capabilities.extensions['io.modelcontextprotocol/events']).toEqual({ listChanged: true });
    expect(discover.result.capabilities.events).toEqual({ listChanged: true });
    const { init } = await legacy(mcp);
    expect(init.capabilities.events).toEqual({ listChanged: true });
    expect(init.capabilities.extensions['io.modelcontextprotocol/events']).toEqual({ listChanged: true });
  });

  it('lists what the caller may see, privately cached; a hidden type is NotFound', async () => {
    const { mcp } = incidents();
    const anonymous = await modern(mcp, 'events/list');
    expect(anonymous.result.events.map((e: any) => e.name)).toEqual(['incident.created']);
    expect(anonymous.result.cacheScope).toBe('private');
    expect(anonymous.result.events[0]).toMatchObject({ delivery: ['poll', 'push'], inputSchema: { type: 'object' }, payloadSchema: { type: 'object' } });
    const admin = await modern(mcp, 'events/list', {}, { admin: true });
    expect(admin.result.events.map((e: any) => e.name)).toEqual(['incident.created', 'audit.entry']);
    const hidden = await modern(mcp, 'events/poll', { name: 'audit.entry', arguments: {}, cursor: null });
    expect(hidden.error).toMatchObject({ code: -32023, data: { kind: 'event' } });
  });
});

describe('events/poll', () => {
  it('bootstraps, then returns matching events after the cursor, in both eras', async () => {
    const { mcp, incident } = incidents();
    const first = await modern(mcp, 'events/poll', { name: 'incident.created', arguments: { service: 'db' }, cursor: null });
    expect(first.result).toMatchObject({ events: [], truncated: false, hasMore: false, nextPollMs: 5000, resultType: 'complete' });
    await incident.emit({ id: '1', service: 'web', severity: 'low' });
    const { eventId } = await incident.emit({ id: '2', service: 'db', severity: 'high' }, { eventId: 'upstream-2' });
    expect(eventId).toBe('upstream-2');
    const second = await modern(mcp, 'events/poll', { name: 'incident.created', arguments: { service: 'db' }, cursor: first.result.cursor });
    expect(second.result.events).toEqual([{ eventId: 'upstream-2', name: 'incident.created', timestamp: expect.any(String), data: { id: '2', service: 'db', severity: 'high' } }]);
    // Quiet: the cursor still moves past what did not match.
    await incident.emit({ id: '3', service: 'web', severity: 'low' });
    const third = await modern(mcp, 'events/poll', { name: 'incident.created', arguments: { service: 'db' }, cursor: second.result.cursor });
    expect(third.result.events).toEqual([]);
    expect(third.result.cursor).not.toBe(second.result.cursor);
    const { call } = await legacy(mcp);
    const old = await call('events/poll', { name: 'incident.created', arguments: {}, cursor: first.result.cursor });
    expect(old.result.events.map((e: any) => e.data.id)).toEqual(['1', '2', '3']);
    expect(old.result.resultType).toBeUndefined();
  });

  it('caps at maxEvents with hasMore, and an absent cursor equals null', async () => {
    const { mcp, incident } = incidents();
    const start = await modern(mcp, 'events/poll', { name: 'incident.created' });
    expect(start.result.events).toEqual([]);
    for (let i = 0; i < 5; i++) await incident.emit({ id: String(i), service: 's', severity: 'low' });
    const page = await modern(mcp, 'events/poll', { name: 'incident.created', cursor: start.result.cursor, maxEvents: 2 });
    expect(page.result.events.map((e: any) => e.data.id)).toEqual(['0', '1']);
    expect(page.result.hasMore).toBe(true);
    const rest = await modern(mcp, 'events/poll', { name: 'incident.created', cursor: page.result.cursor, maxEvents: 10 });
    expect(rest.result.events.map((e: any) => e.data.id)).toEqual(['2', '3', '4']);
    expect(rest.result.hasMore).toBe(false);
  });

  it('retention drops the oldest: a cursor before them is truncated, with a fresh cursor', async () => {
    const { mcp, incident } = incidents({ maxEvents: 2 });
    const start = await modern(mcp, 'events/poll', { name: 'incident.created', cursor: null });
    for (let i = 0; i < 4; i++) await incident.emit({ id: String(i), service: 's', severity: 'low' });
    const late = await modern(mcp, 'events/poll', { name: 'incident.created', cursor: start.result.cursor });
    expect(late.result.truncated).toBe(true);
    expect(late.result.events.map((e: any) => e.data.id)).toEqual(['2', '3']);
  });

  it('maxAgeMs skips older events', async () => {
    const { mcp, incident } = incidents();
    const start = await modern(mcp, 'events/poll', { name: 'incident.created', cursor: null });
    await incident.emit({ id: 'old', service: 's', severity: 'low' });
    await new Promise((r) => setTimeout(r, 1_000));
    await incident.emit({ id: 'new', service: 's', severity: 'low' });
    const recent = await modern(mcp, 'events/poll', { name: 'incident.created', cursor: start.result.cursor, maxAgeMs: 500 });
    expect(recent.result.events.map((e: any) => e.data.id)).toEqual(['new']);
  });

  it('refuses forged or foreign cursors, bad arguments and unknown names', async () => {
    const { mcp } = incidents();
    const start = await modern(mcp, 'events/poll', { name: 'incident.created', cursor: null });
    const forged = `${start.result.cursor.slice(0, -2)}AA`;
    expect((await modern(mcp, 'events/poll', { name: 'incident.created', cursor: forged })).error).toMatchObject({ code: -32602, message: 'Invalid cursor' });
    expect((await modern(mcp, 'events/poll', { name: 'incident.created', cursor: 'x'.repeat(5000) })).error.code).toBe(-32602);
    const other = new MiniMCP({ name: 'o', version: '1', onError: () => {} });
    other.event('incident.created', { description: '', payload: { type: 'object' } });
    expect((await modern(other, 'events/poll', { name: 'incident.created', cursor: start.result.cursor })).error.code).toBe(-32602);
    expect((await modern(mcp, 'events/poll', { name: 'incident.created', arguments: { service: 7 } })).error.code).toBe(-32602);
    expect((await modern(mcp, 'events/poll', { name: 'incident.created', maxEvents: 0 })).error.code).toBe(-32602);
    expect((await modern(mcp, 'events/poll', { name: 'nope' })).error).toMatchObject({ code: -32023, data: { kind: 'event' } });
  });

  it('emit() checks the payload against its schema', async () => {
    const { incident } = incidents();
    await expect(incident.emit({ id: 1 } as never)).rejects.toThrow(/does not match its schema/);
  });
});

describe('notifications/events/list_changed', () => {
  function listen(mcp: MiniMCP<any>, notifications: Record<string, boolean>) {
    const seen: string[] = [];
    const acknowledged: unknown[] = [];
    const abort = new AbortController();
    const send = (m: any) => (m.method === 'notifications/subscriptions/acknowledged' ? acknowledged.push(m.params.notifications) : seen.push(m.method));
    const done = mcp.dispatch({ jsonrpc: '2.0', id: `l-${Math.random()}`, method: 'subscriptions/listen', params: { notifications, _meta: meta } }, { send, signal: abort.signal } as never);
    return { seen, acknowledged, stop: async () => { abort.abort(); await done; } };
  }

  it('reaches a 2026 listen stream that asks for it (and is acknowledged), not one that does not', async () => {
    const { mcp } = incidents();
    const asking = listen(mcp, { eventsListChanged: true });
    const other = listen(mcp, { toolsListChanged: true });
    await new Promise((r) => setTimeout(r, 10));
    expect(asking.acknowledged).toEqual([{ eventsListChanged: true }]);
    mcp.event('later.type', { description: 'added at run time', payload: { type: 'object' } });
    await new Promise((r) => setTimeout(r, 10));
    expect(asking.seen).toEqual(['notifications/events/list_changed']);
    expect(other.seen).toEqual([]);
    await asking.stop();
    await other.stop();
  });

  it('is not acknowledged by a server without events', async () => {
    const mcp = new MiniMCP({ name: 'plain', version: '1', onError: () => {} });
    mcp.tool('t', {}, () => 'x');
    const asking = listen(mcp, { eventsListChanged: true });
    await new Promise((r) => setTimeout(r, 10));
    expect(asking.acknowledged).toEqual([{}]);
    await asking.stop();
  });
});

describe('events/stream without a channel to stream on', () => {
  it('is -32603 (plain request/response has no stream), before holding anything', async () => {
    const { mcp } = incidents();
    expect((await modern(mcp, 'events/stream', { name: 'incident.created' })).error).toMatchObject({ code: -32603 });
  });
});

describe('a push stream whose access is revoked', () => {
  it('is terminated with Forbidden at the next heartbeat, and its place is given back', async () => {
    const allowed = new Set(['ada']);
    const mcp = new MiniMCP<{ principal?: string }>({ name: 'r', version: '1', onError: () => {}, maxStreams: 1 });
    mcp.configureEvents({ heartbeatMs: 20 });
    mcp.event('secret.thing', { description: 's', payload: { type: 'object' }, visible: ({ scope }) => allowed.has(scope?.principal ?? '') });
    const { createTestClient } = await import('../../src/testing/index.js');
    const client = createTestClient(mcp, { era: '2026-07-28', scope: { principal: 'ada' } });
    const stream = await client.streamEvents('secret.thing');
    allowed.delete('ada');
    const { until } = await import('../support/until.js');
    await until(() => stream.notifications, (n) => n.some((x) => x.method === 'notifications/events/terminated'));
    expect(stream.notifications.at(-1)!.params).toMatchObject({ error: { code: -32024 } });
    allowed.add('ada');
    const again = await client.streamEvents('secret.thing'); // maxStreams is 1: the terminated stream released its place
    await again.close();
    await stream.close();
  });
});

describe('a push stream whose log read fails', () => {
  it('sends notifications/events/error and stays open: the next event still arrives', async () => {
    const { MemoryEventLog } = await import('../../src/index.js');
    const inner = new MemoryEventLog();
    let failNext = false;
    const log = {
      epoch: (name: string) => inner.epoch(),
      head: (name: string) => inner.head(name),
      append: (...a: Parameters<typeof inner.append>) => inner.append(...a),
      watch: (...a: Parameters<typeof inner.watch>) => inner.watch(...a),
      read: (...a: Parameters<typeof inner.read>) => {
        if (failNext) {
          failNext = false;
          throw new Error('store unavailable');
        }
        return inner.read(...a);
      },
    };
    const errors: unknown[] = [];
    const mcp = new MiniMCP({ name: 'f', version: '1', onError: (e) => errors.push(e) });
    mcp.configureEvents({ log });
    const tick = mcp.event('tick', { description: 't', payload: { type: 'object', properties: { n: { type: 'number' } } } });
    const { createTestClient } = await import('../../src/testing/index.js');
    const stream = await createTestClient(mcp, { era: '2026-07-28' }).streamEvents('tick');
    failNext = true;
    await tick.emit({ n: 1 });
    const { until } = await import('../support/until.js');
    await until(() => stream.notifications, (n) => n.some((x) => x.method === 'notifications/events/error'));
    expect(stream.notifications.find((x) => x.method === 'notifications/events/error')!.params).toMatchObject({ error: { code: -32603, message: 'Reading events failed' } });
    expect(errors).toHaveLength(1); // the cause goes to the server log, not to the client
    await tick.emit({ n: 2 });
    await until(() => stream.events, (events) => events.length === 2); // the failed read's event comes with the next one
    await stream.close();
  });
});
