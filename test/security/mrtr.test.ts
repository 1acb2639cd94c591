/**
 * Finding 6 (MRTR part): `requestState` binds to the principal by default, sealed answers cannot be
 * overridden by the client, the MAC is decoded strictly, and a short secret is refused at construction.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { modernMeta } from '../fuzz/support/messages.js';

const SECRET = 'security-test-secret-0123456789-abcdef';
const INVALID = { code: -32602, message: 'Invalid requestState: it was altered, has expired or belongs to another request' };
const accept = (ok: boolean) => ({ action: 'accept', content: { ok } });

/** No `principal` option: the scope's own `principal` property is the principal. */
function server() {
  const seen: string[] = [];
  const mcp = new MiniMCP<{ principal: string }>({ name: 'sec', version: '1', requestState: { secret: SECRET }, onError: () => {} });
  const schema = { type: 'object', properties: { ok: { type: 'boolean' } } } as const;
  mcp.tool('transfer', {}, async (_args, ctx) => {
    const first = await ctx.elicit({ message: 'Confirm?', requestedSchema: schema }, { key: 'confirm' });
    const second = await ctx.elicit({ message: 'Really?', requestedSchema: schema }, { key: 'again' });
    seen.push(`${JSON.stringify(first.content)} ${JSON.stringify(second.content)}`);
    return 'done';
  });
  const call = (principal: string, extra: object = {}) =>
    mcp.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'transfer', arguments: {}, _meta: modernMeta({ elicitation: {} }), ...extra } }, { scope: { principal } }) as Promise<any>;
  return { mcp, call, seen };
}

async function stateAfterRoundTwo(call: ReturnType<typeof server>['call']): Promise<string> {
  const r1 = await call('alice');
  const r2 = await call('alice', { inputResponses: { confirm: accept(true) }, requestState: r1.result.requestState });
  expect(Object.keys(r2.result.inputRequests)).toEqual(['again']);
  return r2.result.requestState;
}

describe('MRTR requestState', () => {
  it("is bound to the scope's principal without any option: Bob cannot replay Alice's state", async () => {
    const { call, seen } = server();
    const state = await stateAfterRoundTwo(call);
    expect((await call('bob', { inputResponses: { again: accept(true) }, requestState: state })).error).toEqual(INVALID);
    expect((await call('alice', { inputResponses: { again: accept(true) }, requestState: state })).result.resultType).toBe('complete');
    expect(seen).toHaveLength(1);
  });

  it('sealed answers win over answers the client sends again under the same key', async () => {
    const { call, seen } = server();
    const state = await stateAfterRoundTwo(call);
    const done = await call('alice', { inputResponses: { again: accept(true), confirm: accept(false) }, requestState: state });
    expect(done.result.resultType).toBe('complete');
    expect(seen).toEqual(['{"ok":true} {"ok":true}']); // the sealed confirm (true), not the client's rewrite (false)
  });

  it('a state with anything after its MAC is refused', async () => {
    const { call, seen } = server();
    const state = await stateAfterRoundTwo(call);
    for (const junk of ['!', '!!!!', '=', '==', ' ', '\n', '.', '*x']) {
      expect((await call('alice', { inputResponses: { again: accept(true) }, requestState: state + junk })).error, JSON.stringify(junk)).toEqual(INVALID);
    }
    expect(seen).toEqual([]);
  });

  it('a secret shorter than 32 bytes is refused when the server is built', () => {
    for (const secret of ['', 's', 'x'.repeat(31), new Uint8Array(16)]) {
      expect(() => new MiniMCP({ name: 'sec', version: '1', requestState: { secret } })).toThrow(/at least 32 bytes/);
    }
    expect(() => new MiniMCP({ name: 'sec', version: '1', requestState: { secret: 'x'.repeat(32) } })).not.toThrow();
    expect(() => new MiniMCP({ name: 'sec', version: '1', requestState: { secret: new Uint8Array(32) } })).not.toThrow();
  });
});
