/** Limits every request passes through: the idle timeout, the concurrency gate, cancellation and abort. */
import { describe, expect, it } from 'vitest';
import { ConcurrencyGate, IdleSweeper, type Idle } from '../../src/limits/concurrency.js';
import { MiniMCP, type Connection } from '../../src/index.js';

const base = { name: 'limits', version: '1.0.0', onError: () => {} };
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const never = () => new Promise<never>(() => {});

describe('idle timeout', () => {
  it('answers a never-resolving tool with -32603 "Request timed out" in-band', async () => {
    const mcp = new MiniMCP({ ...base, idleTimeoutMs: 30 });
    let signal: AbortSignal | undefined;
    mcp.tool('hang', {}, (_a, ctx) => {
      signal = ctx.signal;
      return never();
    });
    const started = Date.now();
    const outcome = await mcp.dispatch(req('tools/call', { name: 'hang' }, 'h'));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(outcome.status).toBe(200);
    const reply = outcome.reply as any;
    expect(reply.id).toBe('h');
    expect(reply.error.code).toBe(-32603);
    expect(reply.error.message).toMatch(/^Request timed out/);
    expect(reply.error.data).toBeUndefined();
    expect(signal?.aborted).toBe(true);
  });

  it('also applies to prompts and resources', async () => {
    const mcp = new MiniMCP({ ...base, idleTimeoutMs: 20 });
    mcp.prompt('hang', {}, never);
    mcp.resource('test://hang', {}, never);
    for (const [method, params] of [['prompts/get', { name: 'hang' }], ['resources/read', { uri: 'test://hang' }]] as const) {
      const reply = (await mcp.handle(req(method, params))) as any;
      expect(reply.error.code).toBe(-32603);
      expect(reply.error.message).toMatch(/^Request timed out/);
    }
  });

  it('progress resets the timer: progress every 20 ms with idleTimeoutMs 50 runs 200 ms fine', async () => {
    const mcp = new MiniMCP({ ...base, idleTimeoutMs: 50 });
    mcp.tool('steady', {}, async (_a, ctx) => {
      for (let i = 1; i <= 10; i++) {
        await sleep(20);
        ctx.progress(i, 10);
      }
      return 'done';
    });
    const started = Date.now();
    const reply = (await mcp.handle(req('tools/call', { name: 'steady', _meta: { progressToken: 'tok' } }))) as any;
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'done' }] } });
  });

  it('ctx.resetTimeout keeps a silent handler alive; without it the same handler times out', async () => {
    const mcp = new MiniMCP({ ...base, idleTimeoutMs: 60 });
    mcp.tool('busy', {}, async (_a, ctx) => {
      for (let i = 0; i < 6; i++) {
        await sleep(15);
        ctx.resetTimeout();
      }
      return 'ok';
    });
    mcp.tool('lazy', {}, async () => {
      await sleep(150);
      return 'ok';
    });
    expect(((await mcp.handle(req('tools/call', { name: 'busy' }))) as any).result).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    expect(((await mcp.handle(req('tools/call', { name: 'lazy' }))) as any).error.message).toMatch(/^Request timed out/);
  });

  it('the server keeps serving after a timeout', async () => {
    const mcp = new MiniMCP({ ...base, idleTimeoutMs: 10 });
    mcp.tool('hang', {}, never);
    await mcp.handle(req('tools/call', { name: 'hang' }));
    expect(await mcp.handle(req('ping', undefined, 2))).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });
});

describe('the idle sweeper (a linked list of watched requests)', () => {
  it('expires exactly the items still watched, whatever order they were unwatched in, and ignores repeats', async () => {
    const expired: string[] = [];
    const item = (name: string): Idle => ({ lastActive: 0, paused: 0, idlePrev: undefined, idleNext: undefined, expire: () => expired.push(name) });
    const sweeper = new IdleSweeper(20);
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map(item) as [Idle, Idle, Idle, Idle, Idle];
    for (const x of [a, b, c, d, e]) sweeper.watch(x);
    sweeper.watch(c); // twice: still one entry
    sweeper.unwatch(c); // middle
    sweeper.unwatch(e); // head (newest)
    sweeper.unwatch(a); // tail (oldest)
    sweeper.unwatch(a); // twice: no effect
    d.paused = 1; // waiting on the client: its clock is stopped
    await sleep(80);
    expect(expired).toEqual(['b']);
    d.paused = 0;
    await sleep(80);
    expect(expired).toEqual(['b', 'd']);
    sweeper.watch(a); // an item can be watched again after it left
    await sleep(80);
    expect(expired).toEqual(['b', 'd', 'a']);
  });
});

describe('concurrency gate', () => {
  it('maxConcurrency 1, maxQueue 1: the third concurrent request is refused at once with 503 -32603', async () => {
    const mcp = new MiniMCP({ ...base, maxConcurrency: 1, maxQueue: 1 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let runs = 0;
    mcp.tool('slow', {}, async () => {
      runs++;
      await gate;
      return 'ok';
    });
    const first = mcp.dispatch(req('tools/call', { name: 'slow' }, 1));
    const second = mcp.dispatch(req('tools/call', { name: 'slow' }, 2));
    const started = Date.now();
    const third = await mcp.dispatch(req('tools/call', { name: 'slow' }, 3));
    expect(Date.now() - started).toBeLessThan(100);
    expect(third.status).toBe(503);
    expect((third.reply as any).id).toBe(3);
    expect((third.reply as any).error.code).toBe(-32603);
    expect((third.reply as any).error.message).toMatch(/overloaded/i);
    expect(runs).toBe(1);
    release();
    expect((await first).reply).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }] } });
    expect((await second).reply).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'ok' }] } });
    expect(runs).toBe(2);
    // The slots are free again.
    expect((await mcp.dispatch(req('tools/call', { name: 'slow' }, 4))).status).toBe(200);
  });

  it('a queued request that waits longer than queueTimeoutMs is refused with 503', async () => {
    const mcp = new MiniMCP({ ...base, maxConcurrency: 1, maxQueue: 5, queueTimeoutMs: 20, idleTimeoutMs: 1000 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    mcp.tool('slow', {}, async () => {
      await gate;
      return 'ok';
    });
    const first = mcp.dispatch(req('tools/call', { name: 'slow' }, 1));
    const queued = await mcp.dispatch(req('tools/call', { name: 'slow' }, 2));
    expect(queued.status).toBe(503);
    expect((queued.reply as any).error.code).toBe(-32603);
    release();
    expect((await first).status).toBe(200);
  });

  it('a timed-out handler frees its slot', async () => {
    const mcp = new MiniMCP({ ...base, maxConcurrency: 1, maxQueue: 1, idleTimeoutMs: 15 });
    mcp.tool('hang', {}, never);
    mcp.tool('quick', {}, () => 'q');
    await mcp.dispatch(req('tools/call', { name: 'hang' }));
    expect((await mcp.dispatch(req('tools/call', { name: 'quick' }, 2))).reply).toEqual({
      jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'q' }] },
    });
  });
});

describe('cancellation', () => {
  it('notifications/cancelled aborts ctx.signal and the cancelled request gets no reply', async () => {
    const mcp = new MiniMCP({ ...base, idleTimeoutMs: 2000 });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let reason: unknown;
    mcp.tool('wait', {}, (_a, ctx) => new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        reason = ctx.signal.reason;
        resolve('too late');
      });
      started();
    }));
    const pending = mcp.dispatch(req('tools/call', { name: 'wait' }, 'c1'));
    await running;
    expect(await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'user hit stop' } }))
      .toBeUndefined();
    expect(await pending).toEqual({ reply: undefined, status: 202 });
    expect((reason as Error).message).toBe('user hit stop');
  });

  it('only the request with that id (and id type) on that connection is cancelled', async () => {
    const mcp = new MiniMCP({ ...base, idleTimeoutMs: 2000 });
    const aborted: string[] = [];
    const releases: Array<() => void> = [];
    mcp.tool('wait', { input: { type: 'object', properties: { tag: { type: 'string' } } } }, (args, ctx) => new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => aborted.push(String(args.tag)));
      releases.push(() => resolve(`done ${args.tag}`));
    }));
    const a: Connection = { id: 'conn-a' };
    const b: Connection = { id: 'conn-b' };
    const onA = mcp.dispatch(req('tools/call', { name: 'wait', arguments: { tag: 'a7' } }, 7), { connection: a });
    const onB = mcp.dispatch(req('tools/call', { name: 'wait', arguments: { tag: 'b7' } }, 7), { connection: b });
    const onAString = mcp.dispatch(req('tools/call', { name: 'wait', arguments: { tag: 'a"7"' } }, '7'), { connection: a });
    while (releases.length < 3) await sleep(1); // all three handlers run (the JSON Schema validator loads on first use)
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }, { connection: a });
    expect(await onA).toEqual({ reply: undefined, status: 202 });
    expect(aborted).toEqual(['a7']);
    for (const r of releases) r();
    expect(((await onB).reply as any).result).toEqual({ content: [{ type: 'text', text: 'done b7' }] });
    expect(((await onAString).reply as any).result).toEqual({ content: [{ type: 'text', text: 'done a"7"' }] });
  });

  // A request still waiting in the concurrency queue can be cancelled: it never runs and gets no reply.
  it('a request cancelled while it waits in the concurrency queue never runs and gets no reply', async () => {
    const mcp = new MiniMCP({ ...base, maxConcurrency: 1, maxQueue: 2, idleTimeoutMs: 2000 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const ran: unknown[] = [];
    mcp.tool('slow', {}, async (_a, ctx) => {
      ran.push(ctx.requestId);
      await gate;
      return 'ok';
    });
    const first = mcp.dispatch(req('tools/call', { name: 'slow' }, 1));
    const queued = mcp.dispatch(req('tools/call', { name: 'slow' }, 2));
    await sleep(5);
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    release();
    expect((await first).status).toBe(200);
    expect(await queued).toEqual({ reply: undefined, status: 202 });
    expect(ran).toEqual([1]);
  });

  it('a cancellation after the request finished is ignored', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('quick', {}, () => 'q');
    expect(((await mcp.handle(req('tools/call', { name: 'quick' }, 5))) as any).result).toBeDefined();
    expect(await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } })).toBeUndefined();
  });

  it('aborting opts.signal (connection closed, shutdown) aborts the handler and answers -32603', async () => {
    const mcp = new MiniMCP({ ...base, idleTimeoutMs: 2000 });
    let handlerSignal: AbortSignal | undefined;
    mcp.tool('wait', {}, (_a, ctx) => {
      handlerSignal = ctx.signal;
      return never();
    });
    const controller = new AbortController();
    const pending = mcp.dispatch(req('tools/call', { name: 'wait' }), { signal: controller.signal });
    await sleep(5);
    controller.abort(new Error('client went away'));
    // The transport decides whether it can still deliver this (stdio at shutdown can; a closed socket cannot).
    expect(await pending).toEqual({
      reply: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Request cancelled' } },
      status: 200,
    });
    expect(handlerSignal?.aborted).toBe(true);
  });

  it('an already aborted opts.signal never runs the handler and answers -32603', async () => {
    const mcp = new MiniMCP(base);
    let ran = false;
    mcp.tool('slow', {}, async () => {
      ran = true;
      await sleep(20);
      return 'x';
    });
    const outcome = await mcp.dispatch(req('tools/call', { name: 'slow' }), { signal: AbortSignal.abort() });
    expect(outcome).toEqual({ reply: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Request cancelled' } }, status: 200 });
    expect(ran).toBe(false);
  });

  it('ctx.signal is not aborted when the request finished normally (only cancel, disconnect, timeout, shutdown abort it)', async () => {
    const mcp = new MiniMCP(base);
    const signals: AbortSignal[] = [];
    let aborts = 0;
    const keep = (signal: AbortSignal) => {
      signals.push(signal);
      signal.addEventListener('abort', () => aborts++);
    };
    mcp.tool('quick', {}, (_a, ctx) => {
      keep(ctx.signal);
      return 'q';
    });
    mcp.tool('later', {}, async (_a, ctx) => {
      keep(ctx.signal);
      await sleep(1);
      return 'l';
    });
    await mcp.handle(req('tools/call', { name: 'quick' }));
    await mcp.handle(req('tools/call', { name: 'later' }, 2));
    await sleep(5);
    expect(signals).toHaveLength(2);
    expect(signals.map((s) => s.aborted)).toEqual([false, false]);
    expect(aborts).toBe(0);
  });
});

describe('ConcurrencyGate', () => {
  const waiter = (log: string[], name: string) => ({ slot: (granted: boolean) => log.push(`${name}:${granted}`) });

  it('gives each principal at most its share of slots and queue places; a freed slot goes to the first waiter under its share', () => {
    const gate = new ConcurrencyGate(4, 4, 60_000, 2);
    const log: string[] = [];
    expect(gate.acquire(waiter(log, 'a1'), 'a')).toBe(true);
    expect(gate.acquire(waiter(log, 'a2'), 'a')).toBe(true);
    expect(gate.acquire(waiter(log, 'a3'), 'a')).toBeUndefined(); // a is at its share: queued although slots are free
    expect(gate.acquire(waiter(log, 'a4'), 'a')).toBeUndefined();
    expect(gate.acquire(waiter(log, 'a5'), 'a')).toBe(false); // and its queue places are used up
    expect(gate.acquire(waiter(log, 'b1'), 'b')).toBe(true); // b is served meanwhile
    expect(gate.acquire(waiter(log, 'n1'))).toBe(true); // no principal: only the global cap
    expect(gate.acquire(waiter(log, 'b2'), 'b')).toBeUndefined(); // all 4 slots taken
    gate.release('b'); // b1 done: a3 and a4 are at a's share, so b2 (behind them) gets the slot
    expect(log).toEqual(['b2:true']);
    gate.release('a'); // a1 done: a3 gets its slot
    expect(log).toEqual(['b2:true', 'a3:true']);
    expect(gate.active).toBe(4);
  });

  it('one timer refuses queued waiters after queueTimeoutMs, oldest first, none before its time', async () => {
    const gate = new ConcurrencyGate(1, 3, 30);
    const refused: Array<{ name: string; waited: number }> = [];
    const queued = (name: string) => {
      const at = performance.now();
      return { slot: (granted: boolean) => refused.push({ name: `${name}:${granted}`, waited: performance.now() - at }) };
    };
    expect(gate.acquire(queued('held'))).toBe(true);
    expect(gate.acquire(queued('w1'))).toBeUndefined();
    await sleep(10);
    expect(gate.acquire(queued('w2'))).toBeUndefined();
    while (refused.length < 2) await sleep(5);
    expect(refused.map((r) => r.name)).toEqual(['w1:false', 'w2:false']);
    for (const r of refused) expect(r.waited).toBeGreaterThanOrEqual(29);
    gate.release();
    expect(gate.active).toBe(0);
  });
});
