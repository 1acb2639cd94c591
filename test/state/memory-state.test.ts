/** The in-memory state defaults and the one option that wires them (no Redis needed). */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MemoryBus, MemoryProofStore, MemoryRateStore, MemorySessionStore, MemoryTaskStore, MiniMCP, resolveState, type NotificationBus } from '../../src/index.js';

describe('the state option', () => {
  it('defaults every piece to memory, and a piece passed in replaces only that piece', () => {
    const sessions = new MemorySessionStore();
    const mcp = new MiniMCP({ name: 's', version: '1', state: { sessions } });
    expect(mcp.state.sessions).toBe(sessions);
    expect(mcp.state.shared).toBe(false);
    expect(Object.keys(resolveState()).sort()).toEqual(['answers', 'bus', 'cancels', 'proofs', 'rates', 'replay', 'sessions', 'shared', 'tasks']);
    expect(resolveState().proofs).toBeInstanceOf(MemoryProofStore);
    expect(resolveState().tasks).toBeInstanceOf(MemoryTaskStore);
    expect(resolveState().rates).toBeInstanceOf(MemoryRateStore);
  });

  it('tasks live in state.tasks unless tasks.store is given', async () => {
    const shared = new MemoryTaskStore();
    const own = new MemoryTaskStore();
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
    const created = async (mcp: MiniMCP) => {
      mcp.tool('later', { task: 'optional' }, async () => {
        await new Promise((r) => setTimeout(r, 10));
        return 'done';
      });
      return ((await mcp.dispatch({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'later', _meta: meta } })).reply as any).result.taskId as string;
    };
    const viaState = await created(new MiniMCP({ name: 's', version: '1', state: { tasks: shared } }));
    expect(shared.get(viaState, '')?.taskId).toBe(viaState);
    const viaOption = await created(new MiniMCP({ name: 's', version: '1', state: { tasks: shared }, tasks: { store: own } }));
    expect(own.get(viaOption, '')?.taskId).toBe(viaOption);
    expect(shared.get(viaOption, '')).toBeUndefined();
  });

  it('shared state without requestState.secret is refused at construction, with a reason', () => {
    expect(() => new MiniMCP({ name: 's', version: '1', state: { shared: true } })).toThrow(/shared state needs requestState\.secret/);
    expect(() => new MiniMCP({ name: 's', version: '1', state: { shared: true }, requestState: { secret: 'x'.repeat(32) } })).not.toThrow();
  });
});

describe('MemorySessionStore', () => {
  it('answers with values, never promises, and keeps level and subscriptions per session', () => {
    const store = new MemorySessionStore();
    expect(store.get('a')).toBeUndefined();
    store.update('a', { logLevel: 'warning' });
    store.update('a', { subscribe: 'mem://x' });
    store.update('a', { subscribe: 'mem://y' });
    store.update('a', { unsubscribe: 'mem://x' });
    expect(store.get('a')).toEqual({ logLevel: 'warning', subscriptions: ['mem://y'] });
    expect(store.get('b')).toBeUndefined();
  });

  it('is bounded: the least recently used session goes first, and subscriptions per session are capped', () => {
    const store = new MemorySessionStore({ maxSessions: 2, maxSubscriptions: 2 });
    store.update('a', { logLevel: 'info' });
    store.update('b', { logLevel: 'info' });
    store.get('a'); // a is now the most recently used
    store.update('c', { logLevel: 'info' });
    expect([store.get('a') !== undefined, store.get('b') !== undefined, store.get('c') !== undefined]).toEqual([true, false, true]);
    store.update('a', { subscribe: '1' });
    store.update('a', { subscribe: '2' });
    expect(() => store.update('a', { subscribe: '3' })).toThrow(/at most 2 subscriptions/);
  });

  it('keeps nothing for a newcomer it refuses: a full store turning away 200,000 principals does not grow', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const store = new MemorySessionStore({ maxSessions: 1 });
    store.update('kept', { logLevel: 'info' }, 'alice');
    const refuse = (from: number) => {
      let refused = 0;
      for (let i = from; i < from + 100_000; i++) {
        try {
          store.update(`s${i}`, { logLevel: 'info' }, `p${i}`);
        } catch (error) {
          if (/maxSessions/.test(String(error))) refused++;
        }
      }
      expect(refused).toBe(100_000);
    };
    refuse(0); // warm up: whatever the first refusals allocate once
    gc();
    const before = process.memoryUsage().heapUsed;
    refuse(100_000);
    gc();
    // A holder left behind per refused principal is ~100 bytes: 10 MB for these 100,000.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(2_000_000);
    expect(store.get('kept')).toEqual({ logLevel: 'info' });
  });

  it('gives one GET stream per session, to one holder at a time', () => {
    const store = new MemorySessionStore();
    expect(store.claimStream('s', 'h1')).toBe(true);
    expect(store.claimStream('s', 'h1')).toBe(true); // a renewal
    expect(store.claimStream('s', 'h2')).toBe(false);
    store.releaseStream('s', 'h2'); // not h2's to release
    expect(store.claimStream('s', 'h2')).toBe(false);
    store.releaseStream('s', 'h1');
    expect(store.claimStream('s', 'h2')).toBe(true);
  });
});

describe('answers after the changes they raised reached a shared bus', () => {
  /** A bus whose publishes reach "Redis" only when the test says so. */
  function slowBus() {
    const local = new MemoryBus();
    let release: (() => void) | undefined;
    let last: Promise<void> | undefined;
    const bus: NotificationBus = {
      publish: (event) => {
        last = new Promise<void>((resolve) => (release = () => (last = undefined, resolve(), local.publish(event))));
      },
      subscribe: (listener) => local.subscribe(listener),
      pending: () => last,
    };
    return { bus, release: () => release?.() };
  }

  it('a handler that raised a change, synchronous or not, answers once the bus has it; one that raised none answers at once', async () => {
    const { bus, release } = slowBus();
    const mcp = new MiniMCP({ name: 's', version: '1', state: { bus } });
    mcp.tool('touch', {}, () => (mcp.notifyResourceUpdated('mem://a'), 'touched'));
    mcp.tool('touch_later', {}, async () => {
      await new Promise((r) => setTimeout(r, 5));
      mcp.notifyResourceUpdated('mem://b');
      return 'touched later';
    });
    mcp.tool('quiet', {}, () => 'quiet');
    const call = (name: string) => mcp.dispatch({ jsonrpc: '2.0', id: name, method: 'tools/call', params: { name } });
    for (const name of ['touch', 'touch_later']) {
      let answered = false;
      const answer = Promise.resolve(call(name)).then((r) => ((answered = true), r));
      await new Promise((r) => setTimeout(r, 30));
      expect(answered).toBe(false); // held: its change has not reached the bus
      release();
      expect(((await answer).reply as any).result.content[0].text).toMatch(/^touched/);
    }
    expect(((await call('quiet')).reply as any).result.content[0].text).toBe('quiet');
  });
});
