/**
 * The fast path stays honest: a synchronous tools/call, answered through the transports' entry
 * (`route`) and through `dispatch`, creates no promise at all (counted with async_hooks).
 */
import { createHook } from 'node:async_hooks';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import { MiniMCP, type JsonObject, type Outcome, type OutcomeSink } from '../../src/index.js';

/** How many promises `fn` creates while it runs synchronously. */
function promisesCreatedBy(fn: () => void): number {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') count++;
    },
  });
  hook.enable();
  try {
    fn();
  } finally {
    hook.disable();
  }
  return count;
}

const never: OutcomeSink = {
  deliver() {
    throw new Error('a synchronous request must not be delivered later');
  },
};

function server(asyncContext?: boolean) {
  const mcp = new MiniMCP({ name: 'fast', version: '1', asyncContext });
  mcp.tool('add', { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));
  mcp.tool('noop', {}, () => 'ok');
  return mcp;
}

const legacyCall = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } });
const modernCall = {
  jsonrpc: '2.0', id: 2, method: 'tools/call',
  params: {
    name: 'noop',
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
  },
};

describe('no promise for a synchronous tools/call', () => {
  for (const asyncContext of [true, false]) {
    it(`route(): the Outcome comes back at once and no promise is made (asyncContext ${asyncContext})`, () => {
      const mcp = server(asyncContext);
      mcp.route(legacyCall, {}, never); // warm-up: first-use work (schema compilation) is not the fast path
      let outcome: Outcome | undefined;
      const created = promisesCreatedBy(() => {
        outcome = mcp.route(legacyCall, { send: () => {} }, never);
      });
      expect(outcome?.reply).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '5' }] } });
      expect(created).toBe(0);
    });
  }

  it('a 2026 request and dispatch() stay promise-free too; a handler that returns a promise is counted', () => {
    const mcp = server();
    mcp.tool('slow', {}, async () => 'later');
    let outcome: Outcome | Promise<Outcome> | undefined;
    expect(promisesCreatedBy(() => (outcome = mcp.dispatch(modernCall)))).toBe(0);
    expect(outcome).not.toBeInstanceOf(Promise);
    expect((outcome as Outcome).reply).toMatchObject({ id: 2, result: { resultType: 'complete' } });
    // The counter does see promises: an async handler makes some (so the zeros above mean something).
    const slow = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow' } };
    expect(promisesCreatedBy(() => void mcp.dispatch(slow))).toBeGreaterThan(0);
  });
});

describe('no promise for a synchronous extension method, nor with synchronous hooks', () => {
  it('a method added with mcp.method() whose handler returns a value: zero promises, both eras', () => {
    const mcp = server().method('acme/sum', { params: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({ sum: a + b }));
    const legacy = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'acme/sum', params: { a: 1, b: 2 } });
    const modern = { jsonrpc: '2.0', id: 8, method: 'acme/sum', params: { a: 1, b: 2, _meta: modernCall.params._meta } };
    mcp.route(legacy, {}, never);
    let outcomes: (Outcome | undefined)[] = [];
    const created = promisesCreatedBy(() => {
      outcomes = [mcp.route(legacy, { send: () => {} }, never), mcp.route(modern, {}, never)];
    });
    expect(outcomes.map((o) => o?.reply)).toEqual([
      { jsonrpc: '2.0', id: 7, result: { sum: 3 } },
      { jsonrpc: '2.0', id: 8, result: { sum: 3, resultType: 'complete' } },
    ]);
    expect(created).toBe(0);
  });

  it('hooks that return nothing keep tools/call and an extension method synchronous', () => {
    const seen: string[] = [];
    const mcp = server()
      .method('acme/now', {}, () => ({ ok: true }))
      .use({ before: (r) => void seen.push(`before ${r.method}`), after: (r) => void seen.push(`after ${r.method}`) });
    mcp.route(legacyCall, {}, never);
    let outcomes: (Outcome | undefined)[] = [];
    const created = promisesCreatedBy(() => {
      outcomes = [mcp.route(legacyCall, {}, never), mcp.route({ jsonrpc: '2.0', id: 9, method: 'acme/now' }, {}, never)];
    });
    expect(outcomes.map((o) => o?.reply)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '5' }] } },
      { jsonrpc: '2.0', id: 9, result: { ok: true } },
    ]);
    expect(created).toBe(0);
    expect(seen.slice(2)).toEqual(['before tools/call', 'after tools/call', 'before acme/now', 'after acme/now']);
  });
});

describe('a request answered at once leaves nothing to undo', () => {
  // Each request on a stdio stream used to add itself to the cancel registry and to the stream's
  // signal, and take itself out again: two hash-table entries per request, whose rehashed tables the
  // young generation promoted until it grew to its maximum (peak RSS 93 MB against the floor's 51).
  it('a synchronous tools/call on a connection registers no cancel route and no signal listener; an async one has both, and a cancel reaches it', async () => {
    const mcp = server();
    let release!: () => void;
    mcp.tool('wait', {}, (_args, ctx) => new Promise<string>((resolve) => {
      release = () => resolve('late');
      ctx.signal.addEventListener('abort', () => resolve('cancelled'));
    }));
    const added = vi.spyOn(mcp.state.cancels, 'add');
    const listeners = new Set<unknown>();
    const signal = {
      aborted: false,
      reason: undefined,
      addEventListener: (_type: string, listener: unknown) => void listeners.add(listener),
      removeEventListener: (_type: string, listener: unknown) => void listeners.delete(listener),
    };
    const delivered: Outcome[] = [];
    const sink: OutcomeSink = { deliver: (outcome) => void delivered.push(outcome) };
    const facts = { send: () => {}, connection: { id: 'c1' }, signal };
    const outcome = mcp.route(legacyCall, facts, never);
    expect(outcome?.reply).toMatchObject({ id: 1, result: { content: [{ text: '5' }] } });
    expect([added.mock.calls.length, listeners.size]).toEqual([0, 0]);

    expect(mcp.route({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait' } }, facts, sink)).toBeUndefined();
    expect([added.mock.calls.length, listeners.size]).toEqual([1, 1]);
    mcp.route({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } }, facts, sink);
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    expect(listeners.size).toBe(0); // finished: taken out again
    expect(delivered.map((outcome) => outcome.reply)).toEqual([undefined]); // a request the client cancelled gets no answer
  });
});

describe('handle() overloads', () => {
  it('a string in gives a string out, an object in gives an object out (types and values)', async () => {
    const mcp = server();
    const text = await mcp.handle(legacyCall);
    expectTypeOf(text).toEqualTypeOf<string | undefined>();
    expect(typeof text).toBe('string');
    expect(JSON.parse(text!)).toMatchObject({ id: 1, result: { content: [{ text: '5' }] } });
    const object = await mcp.handle(modernCall);
    expectTypeOf(object).toEqualTypeOf<JsonObject | undefined>();
    expect(object).toMatchObject({ id: 2, result: { resultType: 'complete' } });
    const either: string | object = Math.random() < 2 ? legacyCall : modernCall;
    expectTypeOf(await mcp.handle(either)).toEqualTypeOf<string | JsonObject | undefined>();
  });
});
