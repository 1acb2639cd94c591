/**
 * `ctx.once(key, fn)` (issue 26, item 8): a side effect that runs once across the rounds of a 2026
 * MRTR request, whose handler runs again from the top after each `ctx.elicit()`. Its result is sealed
 * into the signed requestState; a 2025 request (and one that never asks) simply runs it once.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP, type MiniMCPOptions } from '../../src/index.js';
import { createTestClient } from '../../src/testing/index.js';

const V = '2026-07-28';
const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const req = (method: string, params: Record<string, unknown>, id: string | number = 1) => ({ jsonrpc: '2.0', id, method, params });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const schema = { type: 'object', properties: { n: { type: 'string' } } };
const accept = (n: string) => ({ action: 'accept', content: { n } });
const ask = async (ctx: { elicit: (p: any) => Promise<any> }, message = 'Name?') => (await ctx.elicit({ message, requestedSchema: schema })).content?.n;

/** A server whose `onError` log is kept, so a test can read what a handler's mistake said. */
function server(options: Partial<MiniMCPOptions> = {}) {
  const errors: string[] = [];
  const mcp = new MiniMCP({ name: 'once', version: '1', onError: (e) => errors.push(String((e as Error).message)), ...options });
  return { mcp, errors };
}

/** One 2026 round of tools/call: the result (input_required or complete) or the error. */
async function round(mcp: MiniMCP, name: string, state?: string, inputResponses?: Record<string, unknown>, args: Record<string, unknown> = {}) {
  const params: Record<string, unknown> = { name, arguments: args, _meta: meta };
  if (state !== undefined) params.requestState = state;
  if (inputResponses !== undefined) params.inputResponses = inputResponses;
  return (await mcp.handle(req('tools/call', params))) as any;
}

describe('2026: a step runs once across the rounds', () => {
  it('the first round runs it and seals its result; the retry returns the sealed result without running it', async () => {
    const { mcp } = server();
    let charges = 0;
    mcp.tool('pay', {}, async (_a, ctx) => {
      const receipt = await ctx.once('charge', () => ({ id: `r-${++charges}` }));
      const name = await ask(ctx);
      return `${receipt.id} for ${name}`;
    });
    const r1 = (await round(mcp, 'pay')).result;
    expect(r1.resultType).toBe('input_required');
    expect(charges).toBe(1);
    const r2 = (await round(mcp, 'pay', r1.requestState, { 'input-1': accept('Ann') })).result;
    expect(r2).toEqual({ content: [{ type: 'text', text: 'r-1 for Ann' }], resultType: 'complete' });
    expect(charges).toBe(1);
  });

  it('three rounds: each step runs in the round that first reaches it, once; earlier steps stay sealed', async () => {
    const { mcp } = server();
    const ran: string[] = [];
    mcp.tool('trip', {}, async (_a, ctx) => {
      const a = await ctx.once('a', () => (ran.push('a'), 1));
      const first = await ask(ctx, 'First?');
      const b = await ctx.once('b', async () => (await sleep(1), ran.push('b'), 2));
      const second = await ask(ctx, 'Second?');
      const c = await ctx.once('c', () => void ran.push('c')); // nothing returned: sealed as nothing
      return JSON.stringify([a, first, b, second, c]);
    });
    const r1 = (await round(mcp, 'trip')).result;
    expect(ran).toEqual(['a']);
    const r2 = (await round(mcp, 'trip', r1.requestState, { 'input-1': accept('x') })).result;
    expect(r2.resultType).toBe('input_required');
    expect(ran).toEqual(['a', 'b']);
    const r3 = (await round(mcp, 'trip', r2.requestState, { 'input-2': accept('y') })).result;
    expect(r3.content[0].text).toBe('[1,"x",2,"y",null]');
    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('a step still running when the round asks for input is waited for and sealed, not run again', async () => {
    const { mcp } = server();
    let writes = 0;
    mcp.tool('both', {}, async (_a, ctx) => {
      const [written, name] = await Promise.all([ctx.once('write', async () => (await sleep(30), ++writes)), ask(ctx)]);
      return `${written} ${name}`;
    });
    const r1 = (await round(mcp, 'both')).result;
    expect(r1.resultType).toBe('input_required');
    const r2 = (await round(mcp, 'both', r1.requestState, { 'input-1': accept('Bo') })).result;
    expect(r2.content[0].text).toBe('1 Bo');
    expect(writes).toBe(1);
  });

  it('a step the handler reaches after its round ended does not start (it runs in the next round)', async () => {
    const { mcp } = server();
    let late = 0;
    mcp.tool('late', {}, async (_a, ctx) => {
      const name = ask(ctx);
      await sleep(20); // the round ends meanwhile: input_required is already answered
      const n = await ctx.once('late', () => ++late);
      return `${n} ${await name}`;
    });
    const r1 = (await round(mcp, 'late')).result;
    expect(r1.resultType).toBe('input_required');
    await sleep(50);
    expect(late).toBe(0);
    const r2 = (await round(mcp, 'late', r1.requestState, { 'input-1': accept('Cy') })).result;
    expect(r2.content[0].text).toBe('1 Cy');
    expect(late).toBe(1);
  });

  it('a step that throws is not sealed: the next round runs it again', async () => {
    const { mcp } = server();
    let tries = 0;
    mcp.tool('flaky', {}, async (_a, ctx) => {
      const got = await ctx.once('call', () => {
        if (++tries === 1) throw new Error('upstream down');
        return 'ok';
      }).catch(() => 'failed');
      return `${got} ${await ask(ctx)}`;
    });
    const r1 = (await round(mcp, 'flaky')).result;
    const r2 = (await round(mcp, 'flaky', r1.requestState, { 'input-1': accept('D') })).result;
    expect(r2.content[0].text).toBe('ok D');
    expect(tries).toBe(2);
  });

  it('the same when the handler asks for roots or a sample instead of an elicitation', async () => {
    const { mcp } = server();
    let runs = 0;
    mcp.tool('roots', {}, async (_a, ctx) => `${await ctx.once('r', () => ++runs)} ${(await ctx.listRoots()).roots.length}`);
    mcp.tool('sample', {}, async (_a, ctx) => {
      const n = await ctx.once('s', () => ++runs);
      const reply = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
      return `${n} ${reply.role}`;
    });
    const client = createTestClient(mcp, {
      era: V, onRoots: () => ({ roots: [{ uri: 'file:///w' }] }), onSample: () => ({ role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm' }),
    });
    expect((await client.callTool('roots')).content).toEqual([{ type: 'text', text: '1 1' }]);
    expect((await client.callTool('sample')).content).toEqual([{ type: 'text', text: '2 assistant' }]);
    expect(runs).toBe(2);
  });

  it('keys are data, never object machinery: "__proto__" and "constructor" seal and open as any key', async () => {
    const { mcp } = server();
    const ran: string[] = [];
    mcp.tool('odd', {}, async (_a, ctx) => {
      const a = await ctx.once('__proto__', () => (ran.push('p'), { polluted: true }));
      const b = await ctx.once('constructor', () => (ran.push('c'), 'c'));
      return JSON.stringify([a, b, await ask(ctx)]);
    });
    const r1 = (await round(mcp, 'odd')).result;
    const r2 = (await round(mcp, 'odd', r1.requestState, { 'input-1': accept('Z') })).result;
    expect(r2.content[0].text).toBe('[{"polluted":true},"c","Z"]');
    expect(ran).toEqual(['p', 'c']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a request that never asks for input runs the step once and seals nothing', async () => {
    const { mcp } = server();
    let runs = 0;
    mcp.tool('plain', {}, async (_a, ctx) => String(await ctx.once('s', () => ++runs)));
    expect((await round(mcp, 'plain')).result).toEqual({ content: [{ type: 'text', text: '1' }], resultType: 'complete' });
    expect(runs).toBe(1);
  });

  it('prompts and resources: the same, through the test client\'s MRTR rounds', async () => {
    const { mcp } = server();
    let runs = 0;
    mcp.prompt('greet', {}, async (_a, ctx) => `${await ctx.once('p', () => ++runs)} ${await ask(ctx)}`);
    mcp.resource('mem://note', {}, async (_uri, ctx) => `${await ctx.once('r', () => ++runs)} ${await ask(ctx)}`);
    const client = createTestClient(mcp, { era: V, onElicit: () => ({ action: 'accept', content: { n: 'Eve' } }) });
    expect((await client.getPrompt('greet')).messages).toEqual([{ role: 'user', content: { type: 'text', text: '1 Eve' } }]);
    expect((await client.readResource('mem://note')).contents).toEqual([{ uri: 'mem://note', mimeType: 'text/plain', text: '2 Eve' }]);
    expect(runs).toBe(2);
  });
});

describe("the guide's example (docs/guide.md, A side effect once)", () => {
  it('the table is held once; a last round sent twice charges with the same sealed idempotency key', async () => {
    const { mcp } = server();
    const holds: number[] = [];
    const charges: string[] = [];
    const holdTable = async (guests: number) => (holds.push(guests), { holdId: `h${holds.length}`, deposit: 10 });
    const chargeDeposit = async (holdId: string, amount: number, idempotencyKey: string) => (charges.push(idempotencyKey), { paymentId: `${holdId}-${amount}` });
    mcp.tool('book', {}, async (_args, ctx) => {
      const hold = await ctx.once('hold', () => holdTable(4));
      const idempotencyKey = await ctx.once('payment-key', () => crypto.randomUUID());
      const answer = await ctx.elicit({
        message: `Pay the deposit of ${hold.deposit} EUR?`,
        requestedSchema: { type: 'object', properties: { pay: { type: 'boolean' } }, required: ['pay'] },
      });
      if (answer.action !== 'accept' || answer.content?.pay !== true) return 'Not booked';
      const { paymentId } = await chargeDeposit(hold.holdId, hold.deposit, idempotencyKey);
      return `Booked: hold ${hold.holdId}, payment ${paymentId}`;
    });
    const r1 = (await round(mcp, 'book')).result;
    const last = { 'input-1': { action: 'accept', content: { pay: true } } };
    const r2 = (await round(mcp, 'book', r1.requestState, last)).result;
    const again = (await round(mcp, 'book', r1.requestState, last)).result; // the client resends its last round
    expect(r2.content[0].text).toBe('Booked: hold h1, payment h1-10');
    expect(again).toEqual(r2);
    expect(holds).toEqual([4]);
    expect(charges).toHaveLength(2);
    expect(charges[1]).toBe(charges[0]); // the provider sees one key: it charges once
  });
});

describe('2026: the sealed steps are signed', () => {
  it('a state whose step result was altered is -32602, and nothing runs', async () => {
    const { mcp } = server();
    let runs = 0;
    mcp.tool('pay', {}, async (_a, ctx) => `${await ctx.once('amount', () => (++runs, 10))} ${await ask(ctx)}`);
    const r1 = (await round(mcp, 'pay')).result;
    const [body, mac] = r1.requestState.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    expect(payload.s).toEqual({ amount: [10] });
    const forged = `${Buffer.from(JSON.stringify({ ...payload, s: { amount: [0] } })).toString('base64url')}.${mac}`;
    const refused = await round(mcp, 'pay', forged, { 'input-1': accept('F') });
    expect(refused.error).toEqual({ code: -32602, message: 'Invalid requestState: it was altered, has expired or belongs to another request' });
    expect(runs).toBe(1);
  });

  it('a handler that seals no step leaves the state as it was (no steps field)', async () => {
    const { mcp } = server();
    mcp.tool('ask', {}, async (_a, ctx) => String(await ask(ctx)));
    const r1 = (await round(mcp, 'ask')).result;
    expect(JSON.parse(Buffer.from(r1.requestState.split('.')[0], 'base64url').toString()).s).toBeUndefined();
  });
});

describe('bounds, JSON results and keys (every era)', () => {
  it('past requestState.maxSteps the step does not run and the error names the option', async () => {
    const { mcp, errors } = server({ requestState: { maxSteps: 2 } });
    const ran: number[] = [];
    mcp.tool('many', {}, async (_a, ctx) => {
      for (let i = 0; i < 3; i++) await ctx.once(`s${i}`, () => ran.push(i));
      return 'done';
    });
    const r = (await round(mcp, 'many')).result;
    expect(r).toEqual({ content: [{ type: 'text', text: 'The tool failed' }], isError: true, resultType: 'complete' });
    expect(ran).toEqual([0, 1]);
    expect(errors).toEqual(['ctx.once("s2") would be step 3 of this request; at most 2 can be sealed (requestState.maxSteps)']);
  });

  it('past requestState.maxStepBytes (steps sealed in earlier rounds count) the error says so', async () => {
    const { mcp, errors } = server({ requestState: { maxStepBytes: 100 } });
    mcp.tool('big', {}, async (_a, ctx) => {
      await ctx.once('first', () => 'x'.repeat(60)); // 5 + 62 bytes
      await ask(ctx);
      await ctx.once('second', () => 'y'.repeat(30)); // 6 + 32 more: 105 > 100
      return 'done';
    });
    const r1 = (await round(mcp, 'big')).result;
    expect(r1.resultType).toBe('input_required');
    const r2 = (await round(mcp, 'big', r1.requestState, { 'input-1': accept('G') })).result;
    expect(r2.isError).toBe(true);
    expect(errors).toEqual([
      'ctx.once("second") ran, but its result would bring the sealed steps to 105 bytes, past 100 (requestState.maxStepBytes): return an id and keep the rest in your own store',
    ]);
  });

  it('a result that is not a JSON value is refused, naming where and what it is', async () => {
    class Order {}
    const cases: [unknown, string][] = [
      [new Date(0), 'the result is a Date'],
      [{ at: { when: new Map() } }, "the result's .at.when is a Map"],
      [[1, undefined], "the result's [1] is undefined"],
      [10n, 'the result is a bigint'],
      [Number.NaN, 'the result is NaN, not a finite number'],
      [{ o: new Order() }, "the result's .o is an Order"],
      [() => 1, 'the result is a function'],
    ];
    for (const [value, where] of cases) {
      const { mcp, errors } = server();
      mcp.tool('t', {}, async (_a, ctx) => String(await ctx.once('k', () => value)));
      expect((await round(mcp, 't')).result.isError).toBe(true);
      expect(errors).toEqual([`ctx.once("k") must return a JSON value (or nothing), to seal it into the requestState: ${where}`]);
    }
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const { mcp, errors } = server();
    mcp.tool('t', {}, async (_a, ctx) => String(await ctx.once('k', () => circular)));
    await round(mcp, 't');
    expect(errors[0]).toMatch(/nested deeper than 64 levels \(or is circular\)$/);
  });

  it('the handler gets the result as later rounds read it (a JSON copy), undefined properties dropped', async () => {
    const { mcp } = server();
    const original = { a: 1, gone: undefined, list: [{ b: 'c' }] };
    let same: boolean | undefined;
    mcp.tool('t', {}, async (_a, ctx) => {
      const got = await ctx.once('k', () => original);
      same = got === original;
      return JSON.stringify(got) + String(Object.keys(got));
    });
    expect((await round(mcp, 't')).result.content[0].text).toBe('{"a":1,"list":[{"b":"c"}]}a,list');
    expect(same).toBe(false);
  });

  it('a key used twice in one request, an empty key or a missing function is an error', async () => {
    const { mcp, errors } = server();
    let runs = 0;
    mcp.tool('dup', {}, async (_a, ctx) => {
      await ctx.once('k', () => ++runs);
      await ctx.once('k', () => ++runs);
      return 'never';
    });
    mcp.tool('empty', {}, async (_a, ctx) => String(await ctx.once('', () => 1)));
    mcp.tool('nofn', {}, async (_a, ctx) => String(await ctx.once('k', undefined as never)));
    for (const name of ['dup', 'empty', 'nofn']) expect((await round(mcp, name)).result.isError).toBe(true);
    expect(runs).toBe(1);
    expect(errors).toEqual([
      'ctx.once("k") was called twice in one request: give each step its own key',
      'ctx.once(key, fn) needs a non-empty string key',
      'ctx.once("k", fn) needs a function',
    ]);
  });

  it('the options are checked at construction', () => {
    expect(() => server({ requestState: { maxSteps: 0 } })).toThrow('MiniMCP option maxSteps must be a positive integer (at most 1000), got 0');
    expect(() => server({ requestState: { maxStepBytes: 600_000 } })).toThrow('MiniMCP option maxStepBytes must be a positive integer (at most 524288), got 600000');
  });
});

describe('2025: elicit waits on the stream and nothing re-runs', () => {
  it('the step runs once, before and after the question, with the same checks', async () => {
    const { mcp, errors } = server();
    let runs = 0;
    mcp.tool('pay', {}, async (_a, ctx) => `${await ctx.once('charge', () => ++runs)} ${await ask(ctx)}`);
    mcp.tool('bad', {}, async (_a, ctx) => String(await ctx.once('d', () => new Date(0))));
    const client = createTestClient(mcp, { era: '2025-11-25', onElicit: () => ({ action: 'accept', content: { n: 'Hal' } }) });
    expect((await client.callTool('pay')).content).toEqual([{ type: 'text', text: '1 Hal' }]);
    expect(runs).toBe(1);
    expect((await client.callTool('bad')).isError).toBe(true);
    expect(errors).toEqual(['ctx.once("d") must return a JSON value (or nothing), to seal it into the requestState: the result is a Date']);
  });
});
