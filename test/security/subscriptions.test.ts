/**
 * Issue 24, finding 1: `resources/subscribe` kept URIs of any size and any number of them (120 URIs
 * of 3.9 MiB took a server from 94 to 596 MiB). Now a URI is capped like resources/read's (8,192
 * characters), and subscriptions are bounded in count and characters per session, per principal and
 * in all (SessionLimits); past a bound, -32602 (-32603 for a server-wide one) naming it, logged once.
 * The Redis store keeps the same bounds: test/state/redis-session-bounds.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { MemorySessionStore, MiniMCP } from '../../src/index.js';
import { sessionServer } from './support/sessions.js';

const uri = (i: number, size = 8_192) => `test://r/${i}/`.padEnd(size, 'x');

describe('resources/subscribe is bounded', () => {
  it('refuses a URI longer than 8,192 characters with -32602 and keeps nothing', async () => {
    const { open, send } = sessionServer();
    const session = await open('bob');
    const reply = await send('bob', session, 'resources/subscribe', { uri: 'test://'.padEnd(8_193, 'x') });
    expect(reply.error).toMatchObject({ code: -32602, message: 'params.uri is longer than 8192 characters' });
    expect(await send('bob', session, 'resources/subscribe', { uri: uri(0) })).toMatchObject({ result: {} });
  });

  it('a session keeps at most 256 KiB of subscribed URIs by default (maxSubscriptionChars)', async () => {
    const { open, send } = sessionServer();
    const session = await open('bob');
    for (let i = 0; i < 32; i++) expect(await send('bob', session, 'resources/subscribe', { uri: uri(i) })).toMatchObject({ result: {} });
    const reply = await send('bob', session, 'resources/subscribe', { uri: uri(32) });
    expect(reply.error).toEqual({
      code: -32602,
      message: 'A session may keep at most 262144 subscribed URI characters (maxSubscriptionChars)',
      data: { bound: 'maxSubscriptionChars' },
    });
    // Unsubscribing makes room again; a URI already kept is not counted twice.
    expect(await send('bob', session, 'resources/subscribe', { uri: uri(0) })).toMatchObject({ result: {} });
    await send('bob', session, 'resources/unsubscribe', { uri: uri(0) });
    expect(await send('bob', session, 'resources/subscribe', { uri: uri(32) })).toMatchObject({ result: {} });
  });

  it('one principal keeps at most 4 MiB over all its sessions by default; another principal still subscribes', async () => {
    const { open, send } = sessionServer();
    let refused: any;
    for (let s = 0; s < 17 && refused === undefined; s++) {
      const session = await open('mallory');
      for (let i = 0; i < 32 && refused === undefined; i++) {
        const reply = await send('mallory', session, 'resources/subscribe', { uri: uri(s * 100 + i) });
        if (reply.error) refused = { at: s * 32 + i, error: reply.error };
      }
    }
    expect(refused).toEqual({ at: 512, error: expect.objectContaining({ code: -32602, data: { bound: 'maxSubscriptionCharsPerPrincipal' } }) });
    const bob = await open('bob');
    expect(await send('bob', bob, 'resources/subscribe', { uri: uri(1) })).toMatchObject({ result: {} });
  });

  it('counts per session too (maxSubscriptions), and a reached bound is logged once per principal and bound', async () => {
    const { open, send, errors } = sessionServer({ state: { sessions: new MemorySessionStore({ maxSubscriptions: 2 }) } });
    const session = await open('bob');
    await send('bob', session, 'resources/subscribe', { uri: 'test://a' });
    await send('bob', session, 'resources/subscribe', { uri: 'test://b' });
    for (let i = 0; i < 3; i++) {
      expect((await send('bob', session, 'resources/subscribe', { uri: `test://c${i}` })).error).toMatchObject({ code: -32602, data: { bound: 'maxSubscriptions' } });
    }
    const other = await open('alice');
    await send('alice', other, 'resources/subscribe', { uri: 'test://a' });
    await send('alice', other, 'resources/subscribe', { uri: 'test://b' });
    await send('alice', other, 'resources/subscribe', { uri: 'test://c' });
    expect(errors.map((e: any) => [e.bound, e.principal])).toEqual([['maxSubscriptions', 'bob'], ['maxSubscriptions', 'alice']]);
  });

  it('server-wide bounds answer -32603 and name the bound', async () => {
    const { open, send } = sessionServer({ state: { sessions: new MemorySessionStore({ maxTotalSubscriptions: 1 }) } });
    await send('alice', await open('alice'), 'resources/subscribe', { uri: 'test://a' });
    const reply = await send('bob', await open('bob'), 'resources/subscribe', { uri: 'test://a' });
    expect(reply.error).toMatchObject({ code: -32603, message: 'The server may keep at most 1 subscriptions (maxTotalSubscriptions)' });
  });

  it('a transport\'s own connection (stdio) bounds its subscriptions per session too', async () => {
    const mcp = new MiniMCP({ name: 'bounds', version: '1', onError: () => {} });
    mcp.resource('test://watched', {}, () => 'w');
    const connection = {};
    for (let i = 0; i < 32; i++) await mcp.handle({ jsonrpc: '2.0', id: i, method: 'resources/subscribe', params: { uri: uri(i) } }, { connection });
    const reply: any = await mcp.handle({ jsonrpc: '2.0', id: 99, method: 'resources/subscribe', params: { uri: uri(99) } }, { connection });
    expect(reply.error).toMatchObject({ code: -32602, data: { bound: 'maxSubscriptionChars' } });
  });
});
