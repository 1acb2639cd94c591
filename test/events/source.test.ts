/**
 * Event types whose truth lives upstream (`source`), scopes on event types, and modes a type does
 * not offer: the upstream's cursor rides inside the signed one, push reads the upstream on an interval.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiniMCP } from '../../src/index.js';
import { createTestClient } from '../../src/testing/index.js';
import { until } from '../support/until.js';

/** An upstream with numbered rows: a cursor is the last row number seen. */
function upstream() {
  const rows: { n: number; text: string }[] = [];
  const reads: (string | null)[] = [];
  return {
    rows,
    reads,
    read(_args: unknown, cursor: string | null) {
      reads.push(cursor);
      const after = cursor === null ? rows.length : Number(cursor);
      const events = rows.filter((r) => r.n > after).map((r) => ({ eventId: `row-${r.n}`, data: { text: r.text }, timestamp: 1_700_000_000_000 + r.n }));
      return { events, cursor: String(rows.length) };
    },
  };
}

describe('source event types', () => {
  it('poll passes the upstream cursor through, signed; a forged one is refused', async () => {
    const up = upstream();
    const mcp = new MiniMCP({ name: 's', version: '1', onError: () => {} });
    mcp.event('row.added', { description: 'rows', payload: z.object({ text: z.string() }), source: (args, cursor) => up.read(args, cursor) });
    const client = createTestClient(mcp, { era: '2026-07-28' });
    up.rows.push({ n: 1, text: 'before' });
    const first = await client.pollEvents('row.added');
    expect(first.events).toEqual([]);
    up.rows.push({ n: 2, text: 'a' }, { n: 3, text: 'b' });
    const next = await client.pollEvents('row.added', {}, first.cursor as string);
    expect((next.events as any[]).map((e) => [e.eventId, e.data.text, e.timestamp])).toEqual([
      ['row-2', 'a', new Date(1_700_000_000_002).toISOString()], ['row-3', 'b', new Date(1_700_000_000_003).toISOString()],
    ]);
    expect(up.reads).toEqual([null, '1']);
    await expect(client.pollEvents('row.added', {}, `${(next.cursor as string).slice(0, -3)}abc`)).rejects.toMatchObject({ code: -32602 });
  });

  it('push reads the upstream on its interval', async () => {
    const up = upstream();
    const mcp = new MiniMCP({ name: 's', version: '1', onError: () => {} });
    mcp.configureEvents({ sourceIntervalMs: 10 });
    mcp.event('row.added', { description: 'rows', payload: z.object({ text: z.string() }), source: (args, cursor) => up.read(args, cursor) });
    const client = createTestClient(mcp, { era: '2026-07-28' });
    const stream = await client.streamEvents('row.added');
    up.rows.push({ n: 1, text: 'live' });
    await until(() => stream.events, (events) => events.length === 1);
    expect(stream.events[0]).toMatchObject({ eventId: 'row-1', data: { text: 'live' } });
    await stream.close();
  });

  it('refuses to emit into a source type, and webhook delivery for it at registration', () => {
    const mcp = new MiniMCP({ name: 's', version: '1' });
    const handle = mcp.event('row.added', { description: 'rows', payload: { type: 'object' }, source: () => ({ events: [], cursor: null }) });
    return expect(handle.emit({})).rejects.toThrow(/reads a source/);
  });
});

describe('scopes and modes', () => {
  it('a type needing a scope is hidden from a token without it', async () => {
    const mcp = new MiniMCP({ name: 's', version: '1', onError: () => {} });
    mcp.event('billing.charged', { description: 'charges', payload: { type: 'object' }, scopes: ['billing:read'] });
    const auth = (scopes: string[]) => ({ principal: 'p', issuer: 'i', subject: 's', clientId: 'c', scopes, claims: {} });
    const call = async (scopes: string[]) => (await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'events/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }, { auth: auth(scopes) } as never)) as any;
    expect((await call([])).result.events).toEqual([]);
    expect((await call(['billing:read'])).result.events.map((e: any) => e.name)).toEqual(['billing.charged']);
  });

  it('a mode the type does not offer is Unsupported; registration refuses what cannot work', async () => {
    const mcp = new MiniMCP({ name: 's', version: '1', onError: () => {} });
    mcp.event('push.only', { description: 'p', payload: { type: 'object' }, delivery: ['push'] });
    const client = createTestClient(mcp, { era: '2026-07-28' });
    await expect(client.pollEvents('push.only')).rejects.toMatchObject({ code: -32026, data: { feature: 'deliveryMode', value: 'poll' } });
    expect(() => mcp.event('no.replay', { description: 'x', payload: { type: 'object' }, replay: false, delivery: ['poll'] })).toThrow(/poll needs replay/);
    expect(() => mcp.event('hooked', { description: 'x', payload: { type: 'object' }, delivery: ['webhook'] })).toThrow(/configureEvents/);
    expect(() => mcp.event('push.only', { description: 'again', payload: { type: 'object' } })).toThrow(/already registered/);
    expect(() => mcp.event('bad name', { description: 'x', payload: { type: 'object' } })).toThrow(/Event name/);
    expect(() => mcp.event('array.payload', { description: 'x', payload: { type: 'array' } })).toThrow(/must describe an object/);
    expect(() => mcp.configureEvents({ heartbeatMs: 60_000 })).toThrow(/heartbeatMs/);
  });
});
