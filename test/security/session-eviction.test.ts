/**
 * Issue 24, finding 7: the in-memory session state was one 10,000-session LRU shared by everyone, so
 * one principal opening 10,050 sessions made every other user lose their log level and subscriptions.
 * Now each named principal keeps at most `maxSessionsPerPrincipal` (1,000) sessions, forgetting its
 * own least recently used; a full store forgets the caller's own or refuses (-32603, maxSessions).
 */
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../src/index.js';
import { sessionServer } from './support/sessions.js';

describe('session state is bounded per principal', () => {
  it('10,050 sessions of one principal do not evict another principal\'s state (defaults)', () => {
    const store = new MemorySessionStore();
    store.update('bob-1', { logLevel: 'debug', subscribe: 'test://b' }, 'bob');
    for (let i = 0; i < 10_050; i++) store.update(`mallory-${i}`, { logLevel: 'error' }, 'mallory');
    expect(store.get('bob-1')).toEqual({ logLevel: 'debug', subscriptions: ['test://b'] });
    // mallory keeps her newest 1,000 (maxSessionsPerPrincipal): her own oldest went first.
    expect(store.get('mallory-9049')).toBeUndefined();
    expect(store.get('mallory-9050')).toEqual({ logLevel: 'error', subscriptions: undefined });
  });

  it('a full store forgets the caller\'s own least recently used session, or refuses; never another\'s', () => {
    const store = new MemorySessionStore({ maxSessions: 3 });
    store.update('a1', { logLevel: 'info' }, 'alice');
    store.update('a2', { logLevel: 'info' }, 'alice');
    store.update('b1', { logLevel: 'info' }, 'bob');
    store.get('a1'); // a2 is now alice's least recently used
    store.update('a3', { logLevel: 'info' }, 'alice');
    expect(['a1', 'a2', 'a3', 'b1'].map((s) => store.get(s) !== undefined)).toEqual([true, false, true, true]);
    expect(() => store.update('c1', { logLevel: 'info' }, 'carol')).toThrow('The server may keep at most 3 sessions (maxSessions)');
    expect(store.get('b1')).toBeDefined();
  });

  it('over the core: a full store answers -32603 naming maxSessions to a newcomer, and the others keep their level', async () => {
    const { open, send } = sessionServer({ state: { sessions: new MemorySessionStore({ maxSessions: 2 }) } });
    const alice = await open('alice');
    const bob = await open('bob');
    expect(await send('alice', alice, 'logging/setLevel', { level: 'debug' })).toMatchObject({ result: {} });
    expect(await send('bob', bob, 'logging/setLevel', { level: 'debug' })).toMatchObject({ result: {} });
    const reply = await send('carol', await open('carol'), 'logging/setLevel', { level: 'debug' });
    expect(reply.error).toMatchObject({ code: -32603, data: { bound: 'maxSessions' } });
  });
});
