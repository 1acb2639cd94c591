/**
 * The public extension API: `mcp.method()` serves a request method with the powers of a built-in one
 * (eras, capability, params schema, ctx, MRTR, cache hints, visibility, hooks, telemetry), and
 * `mcp.notification()` handles a client notification. The method table is per server.
 */
import { SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiniMCP, type Connection } from '../../src/index.js';
import { otelHarness } from '../support/otel.js';

const V = '2026-07-28';
const meta = (caps: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': caps,
});
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const base = { name: 'ext', version: '1.0.0', onError: () => {} };

async function initialized(mcp: MiniMCP<any>, capabilities: Record<string, unknown> = {}): Promise<{ connection: Connection; result: any }> {
  const connection: Connection = { id: 'c1' };
  const reply = await mcp.handle(req('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } }, 0), { connection });
  return { connection, result: (reply as any).result };
}

describe('mcp.method(): a vendor method served like a built-in', () => {
  it('answers in both eras; 2026 results get resultType and the method cache hint', async () => {
    const mcp = new MiniMCP(base).method('acme/echo', { cache: { ttlMs: 5000, cacheScope: 'public' } }, (params) => ({ echoed: params }));
    const { connection } = await initialized(mcp);
    expect(await mcp.handle(req('acme/echo', { a: 1 }), { connection })).toEqual({ jsonrpc: '2.0', id: 1, result: { echoed: { a: 1 } } });
    // `_meta` belongs to the protocol: it never reaches the handler.
    expect((await mcp.handle(req('acme/echo', { a: 1, _meta: meta() })) as any).result)
      .toEqual({ echoed: { a: 1 }, ttlMs: 5000, cacheScope: 'public', resultType: 'complete' });
  });

  it('eras gate it: a handshake-only method is -32601 (404) in 2026, a stateless-only one -32601 in 2025', async () => {
    const mcp = new MiniMCP(base)
      .method('acme/old', { eras: 'handshake' }, () => ({ ok: true }))
      .method('acme/new', { eras: 'stateless' }, () => ({ ok: true }));
    const modern = await mcp.dispatch(req('acme/old', { _meta: meta() }));
    expect(modern.status).toBe(404);
    expect((modern.reply as any).error.code).toBe(-32601);
    const { connection } = await initialized(mcp);
    expect(((await mcp.handle(req('acme/new', {}), { connection })) as any).error.code).toBe(-32601);
    expect(((await mcp.handle(req('acme/old', {}), { connection })) as any).result).toEqual({ ok: true });
  });

  it('params are checked by a Standard Schema or a JSON Schema: invalid is -32602 naming the method', async () => {
    const mcp = new MiniMCP(base)
      .method('acme/add', { params: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({ sum: a + b }))
      .method('acme/raw', { params: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } }, (p) => ({ n: p.n }));
    expect(((await mcp.handle(req('acme/add', { a: 1, b: 2, _meta: meta() }))) as any).result.sum).toBe(3);
    const bad = (await mcp.handle(req('acme/add', { a: 'x', b: 2, _meta: meta() }))) as any;
    expect(bad.error.code).toBe(-32602);
    expect(bad.error.message).toMatch(/^Invalid params for acme\/add: a: /);
    // additionalProperties: false holds although 2026 params carry _meta.
    expect(((await mcp.handle(req('acme/raw', { n: 4, _meta: meta() }))) as any).result).toEqual({ n: 4, resultType: 'complete' });
    expect(((await mcp.handle(req('acme/raw', { n: 'four', _meta: meta() }))) as any).error.code).toBe(-32602);
  });

  it('declares its capability under extensions (or a core capability) in the eras it is served; settings merge', async () => {
    const mcp = new MiniMCP(base)
      .method('acme/a', { capability: { extension: 'com.acme/thing', settings: { a: true } } }, () => ({}))
      .method('acme/b', { eras: 'stateless', capability: { extension: 'com.acme/thing', settings: { b: true } } }, () => ({}))
      .method('acme/c', { capability: { core: 'acme', settings: { x: 1 } } }, () => ({}));
    const { result } = await initialized(mcp);
    expect(result.capabilities.extensions).toEqual({ 'com.acme/thing': { a: true } });
    expect(result.capabilities.acme).toEqual({ x: 1 });
    const discover = ((await mcp.handle(req('server/discover', { _meta: meta() }))) as any).result;
    expect(discover.capabilities.extensions).toEqual({ 'com.acme/thing': { a: true, b: true } });
  });

  it('a visible rule hides the method (-32601) and its capability from other callers; its results are never public', async () => {
    type Scope = { role: string };
    const mcp = new MiniMCP<Scope>(base).method('acme/admin', {
      capability: { extension: 'com.acme/admin' }, cache: { ttlMs: 100, cacheScope: 'public' }, visible: (c) => c.scope?.role === 'admin',
    }, () => ({ secret: 1 }));
    const user = { scope: { role: 'user' } };
    const admin = { scope: { role: 'admin' } };
    const hidden = await mcp.dispatch(req('acme/admin', { _meta: meta() }), user);
    expect([hidden.status, (hidden.reply as any).error.code]).toEqual([404, -32601]);
    expect(((await mcp.handle(req('server/discover', { _meta: meta() }), user)) as any).result.capabilities.extensions).toBeUndefined();
    expect(((await mcp.handle(req('server/discover', { _meta: meta() }), admin)) as any).result.capabilities.extensions).toEqual({ 'com.acme/admin': {} });
    expect(((await mcp.handle(req('acme/admin', { _meta: meta() }), admin)) as any).result)
      .toEqual({ secret: 1, ttlMs: 100, cacheScope: 'private', resultType: 'complete' });
  });

  it('a name already served (a built-in, or registered before) is refused at registration', () => {
    const mcp = new MiniMCP(base).method('acme/x', {}, () => ({}));
    expect(() => mcp.method('tools/list', {}, () => ({}))).toThrow('Method tools/list is already served');
    expect(() => mcp.method('acme/x', {}, () => ({}))).toThrow('already served');
    expect(() => mcp.method('rpc.x', {}, () => ({}))).toThrow('rpc.');
    expect(() => mcp.method('acme/y', { eras: 'new' as 'both' }, () => ({}))).toThrow('eras');
  });

  it('the table is per server: a method on one server is unknown to another', async () => {
    const one = new MiniMCP(base).method('acme/only', {}, () => ({ ok: true }));
    const other = new MiniMCP(base);
    expect(((await one.handle(req('acme/only', { _meta: meta() }))) as any).result.ok).toBe(true);
    expect(((await other.handle(req('acme/only', { _meta: meta() }))) as any).error.code).toBe(-32601);
  });

  it('ctx and MRTR: a method that asks the client answers input_required in 2026 and completes on the retry', async () => {
    const mcp = new MiniMCP(base).method('acme/ask', { mrtr: true }, async (_p, ctx) => {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { n: { type: 'string' } } } });
      return { method: ctx.method, answer };
    });
    const first = ((await mcp.handle(req('acme/ask', { _meta: meta({ elicitation: {} }) }))) as any).result;
    expect(first.resultType).toBe('input_required');
    const retry = ((await mcp.handle(req('acme/ask', {
      _meta: meta({ elicitation: {} }), requestState: first.requestState, inputResponses: { 'input-1': { action: 'accept', content: { n: 'Q' } } },
    }))) as any).result;
    expect(retry).toEqual({ method: 'acme/ask', answer: { action: 'accept', content: { n: 'Q' } }, resultType: 'complete' });
  });

  it('hooks run around it, and a result that is not an object is -32603', async () => {
    const seen: string[] = [];
    const mcp = new MiniMCP(base)
      .method('acme/ok', {}, () => undefined)
      .method('acme/bad', {}, () => 'text' as never)
      .use({ before: (r) => void seen.push(`before ${r.method}`), after: (r, result) => void seen.push(`after ${r.method} ${JSON.stringify(result)}`) });
    expect(((await mcp.handle(req('acme/ok', { _meta: meta() }))) as any).result).toEqual({ resultType: 'complete' });
    expect(((await mcp.handle(req('acme/bad', { _meta: meta() }))) as any).error.code).toBe(-32603);
    expect(seen).toEqual(['before acme/ok', 'after acme/ok {}', 'before acme/bad']);
  });

  it('telemetry names its span by the method (a method the server does not serve stays _OTHER)', async () => {
    const otel = otelHarness();
    const mcp = new MiniMCP({ ...base, telemetry: otel.telemetry }).method('acme/traced', {}, () => ({}));
    await mcp.handle(req('acme/traced', { _meta: meta() }));
    await mcp.handle(req('acme/unknown', { _meta: meta() }, 2));
    expect(otel.spans().filter((s) => s.kind === SpanKind.SERVER).map((s) => s.name)).toEqual(['acme/traced', '_OTHER']);
  });
});

describe('mcp.notification(): a client notification handler', () => {
  it('gets the params (checked by its schema, without _meta) and the sender; what fails goes to onError', async () => {
    const errors: unknown[] = [];
    const got: unknown[] = [];
    const mcp = new MiniMCP({ ...base, onError: (e) => void errors.push(e), principal: (s: any) => s?.user ?? '' })
      .notification('notifications/acme/ping', { params: z.object({ n: z.number() }) }, (params, sender) => void got.push([params, sender.principal]));
    expect(await mcp.handle({ jsonrpc: '2.0', method: 'notifications/acme/ping', params: { n: 1, _meta: meta() } }, { scope: { user: 'ann' } })).toBeUndefined();
    expect(got).toEqual([[{ n: 1 }, 'ann']]);
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/acme/ping', params: { n: 'x' } });
    expect(got).toHaveLength(1);
    expect(String(errors[0])).toMatch(/Invalid params for notification notifications\/acme\/ping/);
  });

  it('the notifications the core acts on cannot be taken over', () => {
    expect(() => new MiniMCP(base).notification('notifications/cancelled', {}, () => {})).toThrow('already has a handler');
  });
});

describe('mcp.method(): scopes, as for tools', () => {
  const token = (scopes: string[]) => ({
    principal: '["https://issuer.example","alice"]', issuer: 'https://issuer.example', subject: 'alice', clientId: 'app', scopes, expiresAt: Date.now() + 60_000, claims: {},
  });
  const modern = (method: string) => req(method, { _meta: meta() });

  it('a token without the method scopes gets the 403 step-up outcome naming them, in both eras; with them, or with no token, it runs', async () => {
    const mcp = new MiniMCP(base).method('acme/reset', { scopes: ['admin'] }, () => ({ reset: true }));
    const refused = await mcp.dispatch(modern('acme/reset'), { auth: token(['read']) });
    expect([refused.status, refused.scopes]).toEqual([403, ['admin']]);
    expect(refused.reply).toMatchObject({ error: { code: -32600, message: 'Forbidden: this operation needs the scope admin' } });
    const { connection } = await initialized(mcp);
    const old = await mcp.dispatch(req('acme/reset', {}), { connection, auth: token([]) });
    expect([old.status, old.scopes]).toEqual([403, ['admin']]);
    expect((await mcp.dispatch(modern('acme/reset'), { auth: token(['admin']) })).reply).toMatchObject({ result: { reset: true } });
    expect((await mcp.dispatch(req('acme/reset', {}), { connection, auth: token(['admin']) })).reply).toMatchObject({ result: { reset: true } });
    expect((await mcp.dispatch(modern('acme/reset'))).reply).toMatchObject({ result: { reset: true } });
  });

  it('the server-wide default scopes reach methods that name none (the function form sees kind "method"); [] opts out', async () => {
    const seen: string[] = [];
    const mcp = new MiniMCP({ ...base, scopes: ['read'] })
      .method('acme/look', {}, () => ({ looked: true }))
      .method('acme/open', { scopes: [] }, () => ({ open: true }));
    expect((await mcp.dispatch(modern('acme/look'), { auth: token([]) })).scopes).toEqual(['read']);
    expect((await mcp.dispatch(modern('acme/look'), { auth: token(['read']) })).reply).toMatchObject({ result: { looked: true } });
    expect((await mcp.dispatch(modern('acme/open'), { auth: token([]) })).reply).toMatchObject({ result: { open: true } });
    const byKind = new MiniMCP({ ...base, scopes: (p) => (seen.push(`${p.kind} ${p.id}`), p.kind === 'method' ? ['ext'] : undefined) })
      .method('acme/look', {}, () => ({ looked: true }));
    expect((await byKind.dispatch(modern('acme/look'), { auth: token([]) })).scopes).toEqual(['ext']);
    expect(seen).toContain('method acme/look');
  });

  it('a scoped method result is never cached publicly', async () => {
    const mcp = new MiniMCP(base).method('acme/mine', { scopes: ['read'], cache: { ttlMs: 1000, cacheScope: 'public' } }, () => ({ mine: true }));
    expect(((await mcp.dispatch(modern('acme/mine'), { auth: token(['read']) })).reply as any).result.cacheScope).toBe('private');
  });

  it('refuses malformed scope lists at registration', () => {
    expect(() => new MiniMCP(base).method('acme/x', { scopes: ['has space'] }, () => ({}))).toThrow(/scopes must be an array of OAuth scope names/);
  });
});
