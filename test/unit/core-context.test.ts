/** The ctx a handler receives: progress, logging (both eras), notify, getContext, scope, client facts. */
import { describe, expect, it } from 'vitest';
import { MiniMCP, getContext, type Context, type Connection } from '../../src/index.js';

const V = '2026-07-28';
const meta = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} }, ...extra,
});
const base = { name: 'ctx', version: '1.0.0', onError: () => {} };
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ctx.progress', () => {
  const mcp = new MiniMCP(base);
  let late: Context | undefined;
  mcp.tool('work', {}, (_a, ctx) => {
    ctx.progress(1, 10, 'starting');
    ctx.progress(1, 10); // not increasing: dropped
    ctx.progress(0.5); // going back: dropped
    ctx.progress(2.5);
    ctx.progress(Number.NaN); // not a number: dropped
    ctx.progress(10, 10, 'done');
    late = ctx;
    return 'ok';
  });

  it('sends increasing values only, with the request token, total and message', async () => {
    const sent: unknown[] = [];
    await mcp.handle(req('tools/call', { name: 'work', _meta: { progressToken: 'tok-1' } }), { send: (m) => sent.push(m) });
    expect(sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 1, total: 10, message: 'starting' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 2.5 } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 10, total: 10, message: 'done' } },
    ]);
  });

  it('a numeric token (including 0) is echoed as a number', async () => {
    const sent: any[] = [];
    await mcp.handle(req('tools/call', { name: 'work', _meta: { progressToken: 0 } }), { send: (m) => sent.push(m) });
    expect(sent).toHaveLength(3);
    expect(sent[0].params.progressToken).toBe(0);
  });

  it('sends nothing without a progressToken (or with an invalid one)', async () => {
    const sent: unknown[] = [];
    await mcp.handle(req('tools/call', { name: 'work' }), { send: (m) => sent.push(m) });
    await mcp.handle(req('tools/call', { name: 'work', _meta: {} }), { send: (m) => sent.push(m) });
    await mcp.handle(req('tools/call', { name: 'work', _meta: { progressToken: { a: 1 } } }), { send: (m) => sent.push(m) });
    expect(sent).toEqual([]);
  });

  it('sends nothing after the request completed', async () => {
    const sent: unknown[] = [];
    await mcp.handle(req('tools/call', { name: 'work', _meta: { progressToken: 't' } }), { send: (m) => sent.push(m) });
    const before = sent.length;
    late!.progress(100);
    late!.log('error', 'late');
    late!.notify('notifications/custom');
    expect(sent.length).toBe(before);
  });

  it('works in 2026 requests with a progressToken in _meta', async () => {
    const sent: any[] = [];
    await mcp.handle(req('tools/call', { name: 'work', _meta: meta({ progressToken: 'm' }) }), { send: (m) => sent.push(m) });
    expect(sent.map((m) => m.params.progress)).toEqual([1, 2.5, 10]);
  });
});

describe('ctx.log', () => {
  const mcp = new MiniMCP(base);
  mcp.tool('chatty', {}, (_a, ctx) => {
    ctx.log('debug', { d: 1 });
    ctx.log('info', 'i', 'app');
    ctx.log('warning', 'w');
    ctx.log('critical', 'c');
    return 'ok';
  });
  const levels = (sent: any[]) => sent.map((m) => m.params.level);

  it('2025 without setLevel: every level is sent as notifications/message', async () => {
    const sent: any[] = [];
    await mcp.handle(req('tools/call', { name: 'chatty' }), { send: (m) => sent.push(m) });
    expect(sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: { d: 1 } } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'app', data: 'i' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', data: 'w' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'critical', data: 'c' } },
    ]);
  });

  it('2025 with a connection level: only that level and above', async () => {
    const sent: any[] = [];
    const connection: Connection = { logLevel: 'warning' };
    await mcp.handle(req('tools/call', { name: 'chatty' }), { send: (m) => sent.push(m), connection });
    expect(levels(sent)).toEqual(['warning', 'critical']);
  });

  it('2026 without _meta logLevel: nothing is sent', async () => {
    const sent: any[] = [];
    await mcp.handle(req('tools/call', { name: 'chatty', _meta: meta() }), { send: (m) => sent.push(m) });
    expect(sent).toEqual([]);
  });

  it('2026 with _meta logLevel: that level and above', async () => {
    const sent: any[] = [];
    await mcp.handle(req('tools/call', { name: 'chatty', _meta: meta({ 'io.modelcontextprotocol/logLevel': 'info' }) }), {
      send: (m) => sent.push(m),
    });
    expect(levels(sent)).toEqual(['info', 'warning', 'critical']);
  });

  it('2026 ignores the 2025 connection level', async () => {
    const sent: any[] = [];
    const connection: Connection = { logLevel: 'debug' };
    await mcp.handle(req('tools/call', { name: 'chatty', _meta: meta() }), { send: (m) => sent.push(m), connection });
    expect(sent).toEqual([]);
  });
});

describe('ctx.notify and a missing send', () => {
  it('notify sends a request-related notification', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('n', {}, (_a, ctx) => {
      ctx.notify('notifications/custom', { a: 1 });
      ctx.notify('notifications/bare');
      return 'ok';
    });
    const sent: unknown[] = [];
    await mcp.handle(req('tools/call', { name: 'n' }), { send: (m) => sent.push(m) });
    expect(sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/custom', params: { a: 1 } },
      { jsonrpc: '2.0', method: 'notifications/bare' },
    ]);
  });

  it('without send, progress / log / notify are silent no-ops and the result is normal', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('all', {}, (_a, ctx) => {
      ctx.progress(1);
      ctx.log('emergency', 'x');
      ctx.notify('notifications/x');
      return 'fine';
    });
    expect(await mcp.handle(req('tools/call', { name: 'all', _meta: { progressToken: 1 } }))).toEqual({
      jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'fine' }] },
    });
  });
});

describe('getContext()', () => {
  it('returns the same ctx inside nested async code of the handler', async () => {
    const mcp = new MiniMCP(base);
    const seen: boolean[] = [];
    async function deepHelper(): Promise<Context> {
      await sleep(1);
      await Promise.resolve();
      return new Promise((resolve) => setTimeout(() => resolve(getContext()), 1));
    }
    mcp.tool('nested', {}, async (_a, ctx) => {
      seen.push(getContext() === ctx);
      const inner = await deepHelper();
      seen.push(inner === ctx);
      const [x, y] = await Promise.all([deepHelper(), deepHelper()]);
      seen.push(x === ctx && y === ctx);
      return String(ctx.requestId);
    });
    expect(((await mcp.handle(req('tools/call', { name: 'nested' }, 'n1'))) as any).result.content[0].text).toBe('n1');
    expect(seen).toEqual([true, true, true]);
  });

  it('keeps concurrent requests apart', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('who', { input: { type: 'object', properties: { d: { type: 'number' } } } }, async (args) => {
      await sleep(Number(args.d));
      return String(getContext().requestId);
    });
    const [a, b] = await Promise.all([
      mcp.handle(req('tools/call', { name: 'who', arguments: { d: 15 } }, 'a')),
      mcp.handle(req('tools/call', { name: 'who', arguments: { d: 1 } }, 'b')),
    ]);
    expect((a as any).result.content[0].text).toBe('a');
    expect((b as any).result.content[0].text).toBe('b');
  });

  it('throws outside a handler', () => {
    expect(() => getContext()).toThrow('getContext() was called outside a MiniMCP handler');
  });

  it('with asyncContext: false, handlers keep their ctx argument and getContext() says why it fails', async () => {
    const logged: unknown[] = [];
    const mcp = new MiniMCP({ ...base, asyncContext: false, onError: (error) => logged.push(error) });
    mcp.tool('plain', {}, (_a, ctx) => `${ctx.method} ${String(ctx.requestId)}`);
    mcp.tool('nested', {}, () => getContext().method);
    expect(((await mcp.handle(req('tools/call', { name: 'plain' }))) as any).result.content[0].text).toBe('tools/call 1');
    const nested = (await mcp.handle(req('tools/call', { name: 'nested' }))) as any;
    expect(nested.result.isError).toBe(true);
    expect(nested.result.content[0].text).toBe('The tool failed'); // a fault of the server, told to its log
    expect(String(logged[0])).toContain('asyncContext: false');
  });

  it('works in prompts and resource readers too', async () => {
    const mcp = new MiniMCP(base);
    mcp.prompt('p', {}, () => getContext().method);
    mcp.resource('test://r', {}, () => getContext().method);
    expect(((await mcp.handle(req('prompts/get', { name: 'p' }))) as any).result.messages[0].content.text).toBe('prompts/get');
    expect(((await mcp.handle(req('resources/read', { uri: 'test://r' }))) as any).result.contents[0].text).toBe('resources/read');
  });
});

describe('ctx facts', () => {
  interface Scope { user: string; roles: string[] }

  it('passes the scope through, typed', async () => {
    const mcp = new MiniMCP<Scope>(base);
    mcp.tool('me', {}, (_a, ctx) => {
      const roles: string[] = ctx.scope.roles;
      return `${ctx.scope.user}:${roles.join(',')}`;
    });
    const reply = await mcp.handle(req('tools/call', { name: 'me' }), { scope: { user: 'ann', roles: ['admin', 'dev'] } });
    expect((reply as any).result.content[0].text).toBe('ann:admin,dev');
    expect(getContext<Scope>).toBeTypeOf('function');
  });

  it('exposes id, method, era, protocol version, meta and client facts (2025)', async () => {
    const mcp = new MiniMCP(base);
    let facts: unknown;
    mcp.tool('facts', {}, (_a, ctx) => {
      facts = {
        requestId: ctx.requestId, method: ctx.method, era: ctx.era, protocolVersion: ctx.protocolVersion,
        meta: ctx.meta, client: ctx.client,
      };
      return 'ok';
    });
    const connection: Connection = {};
    await mcp.handle(req('initialize', { protocolVersion: '2025-06-18', capabilities: { roots: {} }, clientInfo: { name: 'c', version: '9' } }), { connection });
    await mcp.handle(req('tools/call', { name: 'facts', _meta: { progressToken: 3 } }, 'f'), { connection });
    expect(facts).toEqual({
      requestId: 'f', method: 'tools/call', era: 'handshake', protocolVersion: '2025-06-18', meta: { progressToken: 3 },
      client: { capabilities: { roots: {} }, info: { name: 'c', version: '9' } },
    });
    // Without a connection on stdio-like use: latest 2025 version, empty capabilities.
    await mcp.handle(req('tools/call', { name: 'facts' }, 'g'));
    expect(facts).toMatchObject({ era: 'handshake', protocolVersion: '2025-11-25', client: { capabilities: {} }, meta: undefined });
    // 2025 over HTTP without a version header: the spec's 2025-03-26 default.
    await mcp.handle(req('tools/call', { name: 'facts' }, 'h'), { headers: new Headers() });
    expect(facts).toMatchObject({ protocolVersion: '2025-03-26' });
  });

  it('exposes the per-request client facts of a 2026 request', async () => {
    const mcp = new MiniMCP(base);
    let facts: any;
    mcp.tool('facts', {}, (_a, ctx) => {
      facts = { era: ctx.era, protocolVersion: ctx.protocolVersion, client: ctx.client };
      return 'ok';
    });
    await mcp.handle(req('tools/call', { name: 'facts', _meta: meta({ 'io.modelcontextprotocol/clientInfo': { name: 'm', version: '2' } }) }));
    expect(facts).toEqual({ era: 'stateless', protocolVersion: V, client: { capabilities: { sampling: {} }, info: { name: 'm', version: '2' } } });
  });
});

describe('ctx.principal', () => {
  it('is who asks (the transport\'s principal, else the principal option), and empty when anonymous', async () => {
    const mcp = new MiniMCP<{ user?: string }>({ name: 'p', version: '1.0.0', principal: (scope) => scope?.user });
    mcp.tool('who', {}, (_args, ctx) => `[${ctx.principal}]`);
    const who = async (facts: object) => JSON.stringify(await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'who', arguments: {} } }, facts));
    expect(await who({ principal: 'alice' })).toContain('[alice]');
    expect(await who({ scope: { user: 'bob' } })).toContain('[bob]');
    expect(await who({})).toContain('[]');
  });
});
