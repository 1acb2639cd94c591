/** Hooks around dispatch: before can refuse, after sees results, onError sees mapped errors, limits stay. */
import { describe, expect, it } from 'vitest';
import { MiniMCP, McpError, type Context, type RequestInfo } from '../../src/index.js';

interface Scope { user?: string }
const base = { name: 'hooks', version: '1.0.0', onError: () => {} };
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function server(options: Partial<ConstructorParameters<typeof MiniMCP<Scope>>[0]> = {}) {
  const mcp = new MiniMCP<Scope>({ ...base, ...options });
  let runs = 0;
  mcp.tool('echo', {}, () => {
    runs++;
    return 'echoed';
  });
  mcp.prompt('boom', {}, () => {
    throw new Error('secret');
  });
  return { mcp, runs: () => runs };
}

describe('before', () => {
  it('runs before the handler with the request and ctx, in registration order', async () => {
    const { mcp } = server();
    const order: string[] = [];
    let seen: [RequestInfo, Context<Scope>] | undefined;
    mcp.use({ before: (request, ctx) => { order.push('first'); seen = [request, ctx]; } });
    mcp.use({ before: async () => { await sleep(1); order.push('second'); } });
    mcp.tool('trace', {}, () => { order.push('handler'); return 'x'; });
    await mcp.handle(req('tools/call', { name: 'trace', arguments: { a: 1 } }, 'b1'), { scope: { user: 'u' } });
    expect(order).toEqual(['first', 'second', 'handler']);
    expect(seen![0]).toEqual({ id: 'b1', method: 'tools/call', params: { name: 'trace', arguments: { a: 1 } } });
    expect(seen![1].scope).toEqual({ user: 'u' });
    expect(seen![1].method).toBe('tools/call');
  });

  it('can refuse with an McpError: the error is sent as is and the handler never runs', async () => {
    const { mcp, runs } = server();
    mcp.use({
      before: (request, ctx) => {
        if (!ctx.scope?.user) throw new McpError(-32602, 'Sign in first', { reason: 'anonymous' });
      },
    });
    const outcome = await mcp.dispatch(req('tools/call', { name: 'echo' }));
    expect(outcome).toEqual({
      reply: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Sign in first', data: { reason: 'anonymous' } } }, status: 200,
    });
    expect(runs()).toBe(0);
    const allowed = await mcp.dispatch(req('tools/call', { name: 'echo' }, 2), { scope: { user: 'me' } });
    expect((allowed.reply as any).result).toEqual({ content: [{ type: 'text', text: 'echoed' }] });
    expect(runs()).toBe(1);
  });

  it('an McpError refusal is a protocol error even for tools (not an isError result)', async () => {
    const { mcp } = server();
    mcp.use({ before: () => { throw new McpError(4003, 'Forbidden'); } });
    expect((await mcp.handle(req('tools/call', { name: 'echo' })) as any)).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: 4003, message: 'Forbidden' },
    });
  });

  it('a hook throwing a plain Error is an internal error without its message', async () => {
    const logged: unknown[] = [];
    const { mcp } = server({ onError: (e) => logged.push(e) });
    mcp.use({ before: () => { throw new Error('hook bug at /srv/x.js'); } });
    expect(await mcp.handle(req('ping'))).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
    expect(logged).toHaveLength(1);
  });

  it('does not run for method-not-found or ladder errors', async () => {
    const { mcp } = server();
    let calls = 0;
    mcp.use({ before: () => { calls++; } });
    await mcp.handle(req('no/such'));
    await mcp.handle(req('tools/list', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }));
    expect(calls).toBe(0);
  });
});

describe('after', () => {
  it('sees the result the client gets (before 2026 shaping) and the ctx', async () => {
    const { mcp } = server();
    const seen: unknown[] = [];
    mcp.use({ after: (request, result, ctx) => { seen.push([request.method, result, ctx.requestId]); } });
    await mcp.handle(req('tools/call', { name: 'echo' }, 'a1'));
    await mcp.handle(req('ping', undefined, 'a2'));
    expect(seen).toEqual([
      ['tools/call', { content: [{ type: 'text', text: 'echoed' }] }, 'a1'],
      ['ping', {}, 'a2'],
    ]);
  });

  it('is awaited before the reply, and does not run when the handler failed', async () => {
    const { mcp } = server();
    const events: string[] = [];
    mcp.use({ after: async () => { await sleep(5); events.push('after'); } });
    await mcp.handle(req('tools/call', { name: 'echo' }));
    events.push('replied');
    await mcp.handle(req('prompts/get', { name: 'boom' }, 2));
    expect(events).toEqual(['after', 'replied']);
  });

  it('an after hook throwing McpError replaces the result with that error', async () => {
    const { mcp } = server();
    mcp.use({ after: () => { throw new McpError(1002, 'Redacted'); } });
    expect(await mcp.handle(req('tools/call', { name: 'echo' }))).toEqual({ jsonrpc: '2.0', id: 1, error: { code: 1002, message: 'Redacted' } });
  });
});

describe('onError', () => {
  it('sees the mapped error (never the raw one) with request and ctx', async () => {
    const { mcp } = server();
    const seen: Array<[string, number, string, unknown]> = [];
    mcp.use({ onError: (request, error, ctx) => seen.push([request.method, error.code, error.message, ctx?.requestId]) });
    await mcp.handle(req('prompts/get', { name: 'boom' }, 'e1'));
    await mcp.handle(req('prompts/get', { name: 'unknown' }, 'e2'));
    await mcp.handle(req('tools/call', { name: 'nope' }, 'e3'));
    expect(seen).toEqual([
      ['prompts/get', -32603, 'Internal error', 'e1'],
      ['prompts/get', -32602, "Unknown prompt: 'unknown'", 'e2'],
      ['tools/call', -32602, "Unknown tool: 'nope'", 'e3'],
    ]);
    expect(seen[0]![2]).not.toContain('secret');
  });

  it('sees a refusal by a before hook', async () => {
    const { mcp } = server();
    const codes: number[] = [];
    mcp.use({ before: () => { throw new McpError(-32602, 'no'); }, onError: (_r, e) => codes.push(e.code) });
    await mcp.handle(req('tools/call', { name: 'echo' }));
    expect(codes).toEqual([-32602]);
  });

  it('is not called for a successful request or a tool isError result', async () => {
    const { mcp } = server();
    mcp.tool('fails', {}, () => { throw new Error('tool failure'); });
    let calls = 0;
    mcp.use({ onError: () => { calls++; } });
    await mcp.handle(req('tools/call', { name: 'echo' }));
    const r = (await mcp.handle(req('tools/call', { name: 'fails' }, 2))) as any;
    expect(r.result.isError).toBe(true);
    expect(calls).toBe(0);
  });
});

describe('limits still apply with hooks', () => {
  it('a before hook that never finishes is answered by the idle timeout', async () => {
    const { mcp, runs } = server({ idleTimeoutMs: 20 });
    mcp.use({ before: () => new Promise<void>(() => {}) });
    const reply = (await mcp.handle(req('tools/call', { name: 'echo' }))) as any;
    expect(reply.error.code).toBe(-32603);
    expect(reply.error.message).toMatch(/^Request timed out/);
    expect(runs()).toBe(0);
  });

  it('a slow after hook counts against the idle timeout', async () => {
    const { mcp } = server({ idleTimeoutMs: 20 });
    mcp.use({ after: () => new Promise<void>(() => {}) });
    const reply = (await mcp.handle(req('tools/call', { name: 'echo' }))) as any;
    expect(reply.error.message).toMatch(/^Request timed out/);
  });

  it('hooks run inside the concurrency slot: overload is still refused with 503', async () => {
    const { mcp } = server({ maxConcurrency: 1, maxQueue: 1 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    mcp.use({ before: () => gate });
    const a = mcp.dispatch(req('tools/call', { name: 'echo' }, 1));
    const b = mcp.dispatch(req('tools/call', { name: 'echo' }, 2));
    const c = await mcp.dispatch(req('tools/call', { name: 'echo' }, 3));
    expect(c.status).toBe(503);
    expect((c.reply as any).error.code).toBe(-32603);
    release();
    expect((await a).status).toBe(200);
    expect((await b).status).toBe(200);
  });

  it('a 2026 request refused by the ladder never reaches the hooks; the ladder answer is unchanged', async () => {
    const { mcp } = server();
    let calls = 0;
    mcp.use({ before: () => { calls++; }, onError: () => { calls++; } });
    const outcome = await mcp.dispatch(req('ping', {
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    }));
    expect(outcome.status).toBe(404);
    expect(calls).toBe(0);
  });
});
