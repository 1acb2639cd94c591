/**
 * Finding 2: `subscriptions/listen` cannot run the server out of memory. A listen stream keeps its
 * request for its whole life, so the request's size and the number of URIs it watches are capped,
 * and one principal holds at most `maxStreamsPerPrincipal` streams. (The memory these bounds save is
 * measured by scripts/security/rss-attack.mjs, figures in docs/security.md.)
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { EventStore } from '../../src/state/replay.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const base = { name: 'sec', version: '1', onError: () => {} };

function server(options: Partial<ConstructorParameters<typeof MiniMCP<{ principal: string }>>[0]> = {}) {
  const mcp = new MiniMCP<{ principal: string }>({ ...base, ...options });
  mcp.resource('test://watched', {}, () => 'w');
  const open: AbortController[] = [];
  const listen = (principal: string, notifications: unknown, extra: object = {}) => {
    const controller = new AbortController();
    open.push(controller);
    const sent: unknown[] = [];
    const outcome = mcp.dispatch(
      { jsonrpc: '2.0', id: open.length, method: 'subscriptions/listen', params: { ...extra, notifications, _meta: META } },
      { send: (m) => sent.push(m), signal: controller.signal, scope: { principal } },
    );
    return { outcome, sent, close: () => controller.abort() };
  };
  return { mcp, listen, closeAll: () => open.forEach((c) => c.abort()) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('listen filter bounds', () => {
  it('a filter with more URIs than the cap is refused with -32602 and keeps nothing', async () => {
    const { listen } = server();
    const uris = Array.from({ length: 1_001 }, (_, i) => `test://r/${i}`);
    const { outcome } = listen('bob', { resourceSubscriptions: uris });
    expect((await outcome).reply).toMatchObject({ error: { code: -32602, message: 'resourceSubscriptions holds more than 1000 URIs' } });
  });

  it('a listen request larger than the cap (anywhere in its params) is refused with -32602', async () => {
    const { listen } = server();
    const long = 'x'.repeat(200 * 1024);
    for (const [filter, extra] of [[{ resourceSubscriptions: [long] }, {}], [{ toolsListChanged: true }, { padding: [long] }]] as const) {
      const { outcome } = listen('bob', filter, extra);
      expect((await outcome).reply).toMatchObject({ error: { code: -32602, message: expect.stringContaining('larger than 131072 characters') } });
    }
  });

  it('a filter within the caps is acknowledged as sent, and updates still match its URIs', async () => {
    const { mcp, listen, closeAll } = server();
    const uris = Array.from({ length: 999 }, (_, i) => `test://r/${i}`);
    const stream = listen('bob', { resourceSubscriptions: [...uris, uris[0]] }); // 1,000 with one twice
    await tick();
    expect((stream.sent[0] as any).params.notifications).toEqual({ resourceSubscriptions: uris });
    mcp.notifyResourceUpdated('test://r/998');
    mcp.notifyResourceUpdated('test://other');
    expect(stream.sent.map((m: any) => m.params.uri).slice(1)).toEqual(['test://r/998']);
    closeAll();
  });
});

describe('listen streams per principal', () => {
  it('one principal holds at most maxStreamsPerPrincipal streams; others and anonymous clients still get theirs', async () => {
    const { listen, closeAll } = server({ maxStreamsPerPrincipal: 3 });
    const bobs = [1, 2, 3].map(() => listen('bob', { toolsListChanged: true }));
    const refused = await listen('bob', { toolsListChanged: true }).outcome;
    expect(refused.status).toBe(503);
    const alice = listen('alice', { toolsListChanged: true });
    const anonymous = [1, 2, 3, 4].map(() => listen('', { toolsListChanged: true }));
    await tick();
    expect(alice.sent).toHaveLength(1); // acknowledged: open
    for (const a of anonymous) expect(a.sent).toHaveLength(1);
    bobs[0]!.close();
    expect((await bobs[0]!.outcome).status).toBe(200);
    const again = listen('bob', { toolsListChanged: true });
    await tick();
    expect(again.sent).toHaveLength(1); // the freed place is Bob's again
    closeAll();
  });

  it('the principal comes from the `principal` option when given', async () => {
    const mcp = new MiniMCP<{ user: { id: string } }>({ ...base, maxStreamsPerPrincipal: 1, principal: (scope) => scope?.user.id });
    mcp.tool('t', {}, () => 'x');
    const listen = (id: number, user: string) => mcp.dispatch(
      { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META } },
      { send: () => {}, signal: new AbortController().signal, scope: { user: { id: user } } },
    );
    void listen(1, 'bob');
    expect((await listen(2, 'bob')).status).toBe(503);
    expect(mcp.principalOf({ user: { id: 'bob' } })).toBe('bob');
  });
});

describe('resumable streams per principal', () => {
  it("one principal's streams evict only its own oldest, never another principal's", () => {
    const store = new EventStore({ maxStreams: 100, maxStreamsPerPrincipal: 5 });
    const alice = store.open('alice-stream', 's-a', 1, 'alice');
    const bobs = Array.from({ length: 50 }, (_, i) => store.open(`bob-${i}`, 's-b', 1, 'bob'));
    expect(alice.dropped).toBe(false);
    expect(bobs.filter((s) => !s.dropped)).toHaveLength(5);
    expect(bobs.slice(45).every((s) => !s.dropped)).toBe(true); // Bob keeps his newest
    expect(store.size).toBe(6);
  });
});
