/**
 * MRTR (2026-07-28 multi-round input): `requestState` is attacker-controlled. Tampering, expiry,
 * misdirection (another tool, other params, another principal, another server secret), oversize and
 * garbage states must all be -32602 and never reach the handler; replay inside the TTL is accepted by
 * design (stateless) and documented.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { modernMeta } from '../fuzz/support/messages.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CAPS = { elicitation: {} };

function server(options: { ttlMs?: number; secret?: string } = {}) {
  const runs: string[] = [];
  const mcp = new MiniMCP<{ user: string }>({
    name: 'mrtr',
    version: '1',
    requestState: { ttlMs: options.ttlMs ?? 60_000, secret: options.secret ?? 'test-secret-0123456789abcdef-0123456789' },
    principal: (scope) => scope?.user,
    onError: () => {},
  });
  for (const name of ['transfer', 'other']) {
    mcp.tool(name, { input: { type: 'object', properties: { amount: { type: 'number' } } } }, async (args, ctx) => {
      const first = await ctx.elicit({ message: 'Confirm?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }, { key: 'confirm' });
      const second = await ctx.elicit({ message: 'Really?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }, { key: 'again' });
      runs.push(`${name}:${String(args.amount)}:${first.action}:${second.action}`);
      return `done ${String(args.amount)}`;
    });
  }
  return { mcp, runs };
}

const call = (name: string, args: object, extra: object = {}, id: number | string = 1) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: modernMeta(CAPS), ...extra } });
const accept = { action: 'accept', content: { ok: true } };

/** Round 1 (no answers) and round 2 (first answer): returns the state sealed after round 2. */
async function stateAfterRoundTwo(mcp: MiniMCP<{ user: string }>, user = 'alice', args: object = { amount: 5 }) {
  const r1 = (await mcp.handle(call('transfer', args), { scope: { user } })) as any;
  expect(r1.result.resultType).toBe('input_required');
  const r2 = (await mcp.handle(call('transfer', args, { inputResponses: { confirm: accept }, requestState: r1.result.requestState }), { scope: { user } })) as any;
  expect(r2.result.resultType).toBe('input_required');
  expect(Object.keys(r2.result.inputRequests)).toEqual(['again']);
  return r2.result.requestState as string;
}

const INVALID = { code: -32602, message: 'Invalid requestState: it was altered, has expired or belongs to another request' };

describe('requestState', () => {
  it('the honest flow completes, with the earlier answer carried in the state', async () => {
    const { mcp, runs } = server();
    const state = await stateAfterRoundTwo(mcp);
    const done = (await mcp.handle(call('transfer', { amount: 5 }, { inputResponses: { again: accept }, requestState: state }), { scope: { user: 'alice' } })) as any;
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'done 5' }] });
    expect(runs).toEqual(['transfer:5:accept:accept']);
  });

  it('every single-character change of the state is refused (-32602) and never reaches the handler', async () => {
    const { mcp, runs } = server();
    const state = await stateAfterRoundTwo(mcp);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    let refused = 0;
    for (let i = 0; i < state.length; i++) {
      const c = alphabet[(alphabet.indexOf(state[i]!) + 7) % alphabet.length]!;
      const forged = state.slice(0, i) + c + state.slice(i + 1);
      const r = (await mcp.handle(call('transfer', { amount: 5 }, { inputResponses: { again: accept }, requestState: forged }), { scope: { user: 'alice' } })) as any;
      // A change inside the last base64url character's unused bits decodes to the same bytes: still valid.
      if (r.error) {
        expect(r.error).toEqual(INVALID);
        refused++;
      }
    }
    console.info(`[measure] MRTR: ${refused} of ${state.length} one-character forgeries refused (the rest only flip unused base64 padding bits)`);
    expect(refused).toBeGreaterThan(state.length - 4);
    expect(runs).toEqual([]);
  });

  it('a state is bound to its tool, its arguments and its principal', async () => {
    const { mcp, runs } = server();
    const state = await stateAfterRoundTwo(mcp);
    const tries = [
      [call('other', { amount: 5 }, { inputResponses: { again: accept }, requestState: state }), 'alice'],
      [call('transfer', { amount: 5000 }, { inputResponses: { again: accept }, requestState: state }), 'alice'],
      [call('transfer', { amount: 5 }, { inputResponses: { again: accept }, requestState: state }), 'mallory'],
      [{ ...call('transfer', { amount: 5 }, { inputResponses: { again: accept }, requestState: state }), method: 'prompts/get' }, 'alice'],
    ] as const;
    for (const [message, user] of tries) {
      const r = (await mcp.handle(message, { scope: { user } })) as any;
      // (prompts/get: this server has no prompts, so -32601 before the state is even looked at)
      expect(r.error?.code).toBe(message.method === 'prompts/get' ? -32601 : INVALID.code);
    }
    expect(runs).toEqual([]);
  });

  it('a state sealed by another server (another secret) is refused', async () => {
    const a = server({ secret: 'secret-a-0123456789abcdefghij-0123456789' });
    const b = server({ secret: 'secret-b-0123456789abcdefghij-0123456789' });
    const state = await stateAfterRoundTwo(a.mcp);
    const r = (await b.mcp.handle(call('transfer', { amount: 5 }, { inputResponses: { again: accept }, requestState: state }), { scope: { user: 'alice' } })) as any;
    expect(r.error).toEqual(INVALID);
  });

  it('an expired state is refused', async () => {
    const { mcp, runs } = server({ ttlMs: 300 });
    const state = await stateAfterRoundTwo(mcp);
    await sleep(350);
    const r = (await mcp.handle(call('transfer', { amount: 5 }, { inputResponses: { again: accept }, requestState: state }), { scope: { user: 'alice' } })) as any;
    expect(r.error).toEqual(INVALID);
    expect(runs).toEqual([]);
  });

  it('replay inside the TTL is accepted (stateless by design: the handler must be idempotent or check itself)', async () => {
    const { mcp, runs } = server();
    const state = await stateAfterRoundTwo(mcp);
    for (let i = 0; i < 3; i++) {
      await mcp.handle(call('transfer', { amount: 5 }, { inputResponses: { again: accept }, requestState: state }), { scope: { user: 'alice' } });
    }
    expect(runs).toHaveLength(3);
  });

  it('garbage, oversize and wrong-typed states are refused quickly', async () => {
    const { mcp, runs } = server();
    const states: unknown[] = [
      '', '.', '..', 'a.b', '.sig', 'body.', '!!!.!!!', 'eyJ2IjoxfQ.AAAA', 'x'.repeat(1_000_001), `${'A'.repeat(999_990)}.AAAA`,
      123, null, true, [], {}, { state: 'x' }, '\u0000.\u0000', 'e30.' + 'A'.repeat(43),
    ];
    for (const requestState of states) {
      const t0 = performance.now();
      const r = (await mcp.handle(call('transfer', { amount: 5 }, { inputResponses: { again: accept }, requestState }), { scope: { user: 'alice' } })) as any;
      expect(performance.now() - t0).toBeLessThan(200);
      expect(r.error).toEqual(INVALID);
    }
    expect(runs).toEqual([]);
  });

  it('inputResponses that are not objects, or answers of the wrong shape, are -32602 and never reach the handler', async () => {
    const { mcp, runs } = server();
    for (const inputResponses of [5, 'x', [], null]) {
      const r = (await mcp.handle(call('transfer', { amount: 5 }, { inputResponses }), { scope: { user: 'alice' } })) as any;
      // null is "no answers": the first round again.
      if (inputResponses === null) expect(r.error?.code ?? r.result.resultType).toBeDefined();
      else expect(r.error?.code).toBe(-32602);
    }
    for (const answer of [{ action: 'yes' }, { action: 'accept', content: 'x' }, 'accept', null, { action: { toString: 1 } }]) {
      const r = (await mcp.handle(call('transfer', { amount: 5 }, { inputResponses: { confirm: answer } }), { scope: { user: 'alice' } })) as any;
      expect(r.error?.code).toBe(-32602);
    }
    expect(runs).toEqual([]);
  });

  // BUG-10 (src/context/client-requests.ts): answers from the client are checked for shape only on 2026
  // (wellFormed: action in accept/decline/cancel, content an object) and not at all on 2025
  // (PendingRequests.settle resolves with whatever `result` the client sent). Elicitation content may
  // hold only string | number | boolean | string[] (the spec's primitive schema), but objects pass
  // through to handlers typed ElicitResult; the conformance fixture's prompt then throws on
  // String({"toString":1}) and answers -32603 (found by the fuzzer). Expected: -32602 "Malformed
  // inputResponses" on 2026; on 2025 ctx.elicit() rejects (the tool answers isError). Fix: check
  // content values in wellFormed(), and run wellFormed() on 2025 answers too (StreamBroker.request).
  it('BUG-10: a 2026 elicitation answer whose content holds objects is -32602', async () => {
    const { mcp, runs } = server();
    const answer = { action: 'accept', content: { ok: { toString: 1 } } };
    const r = (await mcp.handle(call('transfer', { amount: 5 }, { inputResponses: { confirm: answer, again: answer } }), { scope: { user: 'alice' } })) as any;
    expect(r.error?.code).toBe(-32602);
    expect(runs).toEqual([]);
  });

  it('BUG-10: a 2025 client answering elicitation/create with a malformed result does not reach the handler', async () => {
    const mcp = new MiniMCP({ name: 'm', version: '1', onError: () => {} });
    const received: unknown[] = [];
    mcp.tool('ask', {}, async (_a, ctx) => {
      received.push(await ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } }));
      return 'ok';
    });
    const send = (m: any) => {
      if (m.method === 'elicitation/create') queueMicrotask(() => void mcp.handle({ jsonrpc: '2.0', id: m.id, result: { content: { x: { toString: 1 } } } }));
    };
    await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {} } }, { send });
    expect(received).toEqual([]);
  });

  it('inputResponses keys named like Object.prototype members do not satisfy other questions', async () => {
    const { mcp, runs } = server();
    const responses = JSON.parse('{"__proto__":{"confirm":{"action":"accept"},"again":{"action":"accept"}},"constructor":{"action":"accept"}}');
    const r = (await mcp.handle(call('transfer', { amount: 5 }, { inputResponses: responses }), { scope: { user: 'alice' } })) as any;
    expect(r.result.resultType).toBe('input_required');
    expect(runs).toEqual([]);
    expect(({} as Record<string, unknown>).confirm).toBeUndefined();
  });
});
