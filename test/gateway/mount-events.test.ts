/**
 * Issue 36, mount: a child MiniMCP's event types served by the parent as `<name>_<type>`, kept by
 * the child (its log, cursors and push wake-ups), with the child's visibility, followed when the
 * child adds types, and gone after close(). Driven by createTestClient in both eras.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createTestClient, type TestEra } from '../../src/testing/index.js';
import { until } from '../support/until.js';

type Role = { role?: string };
const PAYLOAD = { type: 'object', properties: { service: { type: 'string' }, n: { type: 'number' } }, required: ['service', 'n'] } as const;
const INPUT = { type: 'object', properties: { service: { type: 'string' } } } as const;

function child() {
  const kid = new MiniMCP<Role>({ name: 'child', version: '1.0.0', onError: () => {} });
  const alert = kid.event('alert', { description: 'An alert', input: INPUT, payload: PAYLOAD });
  kid.event('audit', { description: 'Admins only', payload: PAYLOAD, visible: (caller) => caller.scope?.role === 'admin' });
  return { kid, alert };
}

const names = (listed: { name?: unknown }[]) => listed.map((e) => e.name);

const NOT_FOUND = -32023; // the SEP's NotFound (the default event error codes)

describe.each(['2025-11-25', '2026-07-28'] as TestEra[])('mount carries event types (%s)', (era) => {
  it('lists the child types as <name>_<type> with their schemas; poll reads the child emits and its cursor continues', async () => {
    const { kid, alert } = child();
    const parent = new MiniMCP<Role>({ name: 'parent', version: '1.0.0' });
    parent.mount('kid', kid);
    const client = createTestClient(parent, { era, scope: {} });
    const listed = await client.listEvents();
    expect(names(listed)).toEqual(['kid_alert']);
    expect(listed[0]).toMatchObject({ name: 'kid_alert', description: 'An alert', inputSchema: INPUT, payloadSchema: PAYLOAD, delivery: ['poll', 'push'] });

    const start = await client.pollEvents('kid_alert', { service: 'db' });
    const { eventId } = await alert.emit({ service: 'db', n: 1 });
    await alert.emit({ service: 'web', n: 2 }); // the child's matches filter it out
    const first = await client.pollEvents('kid_alert', { service: 'db' }, start.cursor as string);
    expect(first.events).toEqual([expect.objectContaining({ eventId, name: 'kid_alert', data: { service: 'db', n: 1 } })]);
    await alert.emit({ service: 'db', n: 3 });
    const next = await client.pollEvents('kid_alert', { service: 'db' }, first.cursor as string);
    expect((next.events as { data: unknown }[]).map((e) => e.data)).toEqual([{ service: 'db', n: 3 }]);
  });

  it('streams a child emit to a subscriber of the parent', async () => {
    const { kid, alert } = child();
    const parent = new MiniMCP<Role>({ name: 'parent', version: '1.0.0' });
    parent.mount('kid', kid);
    const stream = await createTestClient(parent, { era, scope: {} }).streamEvents('kid_alert', { service: 'db' });
    const { eventId } = await alert.emit({ service: 'db', n: 1 });
    await until(() => stream.events, (events) => events.length === 1);
    expect(stream.events[0]).toMatchObject({ eventId, name: 'kid_alert', data: { service: 'db', n: 1 }, cursor: expect.any(String) });
    await stream.close();
  });

  it("applies the child's visibility, follows its new types, and close() takes them away", async () => {
    const kid = new MiniMCP<Role>({ name: 'child', version: '1.0.0', onError: () => {} });
    const parent = new MiniMCP<Role>({ name: 'parent', version: '1.0.0' });
    const changes: unknown[] = [];
    parent.bus.subscribe((event) => void changes.push(event));
    const mounted = parent.mount('kid', kid); // the child has no events yet: followed once it does
    kid.event('alert', { description: 'An alert', input: INPUT, payload: PAYLOAD });
    expect(changes).toEqual([{ type: 'events/list_changed' }]);
    kid.event('audit', { description: 'Admins only', payload: PAYLOAD, visible: (caller) => caller.scope?.role === 'admin' });
    const user = createTestClient(parent, { era, scope: { role: 'user' } });
    const admin = createTestClient(parent, { era, scope: { role: 'admin' } });
    expect(names(await user.listEvents())).toEqual(['kid_alert']);
    expect(names(await admin.listEvents())).toEqual(['kid_alert', 'kid_audit']);
    await expect(user.pollEvents('kid_audit')).rejects.toMatchObject({ code: NOT_FOUND });
    await expect(user.streamEvents('kid_audit')).rejects.toMatchObject({ code: NOT_FOUND });
    expect((await admin.pollEvents('kid_audit')).cursor).toEqual(expect.any(String));
    expect(changes).toEqual([{ type: 'events/list_changed' }, { type: 'events/list_changed' }]);
    mounted.close();
    expect(changes).toHaveLength(3);
    expect(await admin.listEvents()).toEqual([]);
    await expect(admin.pollEvents('kid_alert')).rejects.toMatchObject({ code: NOT_FOUND });
  });
});
