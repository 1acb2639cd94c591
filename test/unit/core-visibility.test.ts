/**
 * Per-principal visibility: a registration's `visible` rule and the server-wide `visible` filter, applied
 * alike to lists, pagination, calls, reads, completion, list_changed and 2026 cache hints.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MiniMCP, type JsonObject } from '../../src/index.js';
import { ToolRegistry } from '../../src/primitives/tools.js';
import { ListView, Visibility } from '../../src/primitives/visibility.js';
import { serveStdio } from '../../src/transports/stdio.js';

interface Scope { roles: string[] }
const ADMIN: Scope = { roles: ['admin'] };
const GUEST: Scope = { roles: [] };
const isAdmin = (caller: { scope: Scope }) => caller.scope.roles.includes('admin');

const V = '2026-07-28';
const meta = () => ({ 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} });
const req = (method: string, params: JsonObject = {}, id: string | number = 1) => ({ jsonrpc: '2.0', id, method, params });
const modern = (method: string, params: JsonObject = {}, id: string | number = 1) => req(method, { ...params, _meta: meta() }, id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function server(options: Partial<ConstructorParameters<typeof MiniMCP<Scope>>[0]> = {}) {
  const mcp = new MiniMCP<Scope>({ name: 'vis', version: '1.0.0', onError: () => {}, ...options });
  mcp.tool('echo', { input: { type: 'object', properties: { text: { type: 'string' } } } }, (a) => String(a.text));
  mcp.tool('delete_user', {
    visible: isAdmin,
    input: { type: 'object', properties: { id: { type: 'string', 'x-mcp-header': 'User' } } },
    requires: { sampling: {} },
  }, (a) => `deleted ${String(a.id)}`);
  mcp.prompt('greet', { arguments: [{ name: 'who', required: true }], complete: { who: () => ['ann'] } }, (a) => `hi ${a.who}`);
  mcp.prompt('audit', { visible: isAdmin, arguments: [{ name: 'user', required: true }], complete: { user: () => ['root'] } }, () => 'audit');
  mcp.resource('docs://public', {}, () => 'public');
  mcp.resource('docs://secret', { visible: isAdmin, cache: { ttlMs: 5000, cacheScope: 'public' } }, () => 'secret');
  mcp.resourceTemplate('users://{id}', { complete: { id: () => ['1'] } }, (_u, v) => `user ${String(v.id)}`);
  mcp.resourceTemplate('admin://{+path}', { visible: isAdmin, complete: { path: () => ['etc'] } }, () => 'admin');
  return mcp;
}

const as = (scope: Scope) => ({ scope });
async function reply(mcp: MiniMCP<Scope>, message: unknown, scope: Scope) {
  return (await mcp.dispatch(message, as(scope))).reply as any;
}

describe('lists show only what the caller may see', () => {
  it('tools, prompts, resources and templates: the admin sees all, the guest only the public ones (both eras)', async () => {
    const mcp = server();
    for (const wrap of [req, modern]) {
      const names = async (method: string, key: string, field: string, scope: Scope) =>
        (await reply(mcp, wrap(method), scope)).result[key].map((d: any) => d[field]);
      expect(await names('tools/list', 'tools', 'name', ADMIN)).toEqual(['echo', 'delete_user']);
      expect(await names('tools/list', 'tools', 'name', GUEST)).toEqual(['echo']);
      expect(await names('prompts/list', 'prompts', 'name', ADMIN)).toEqual(['greet', 'audit']);
      expect(await names('prompts/list', 'prompts', 'name', GUEST)).toEqual(['greet']);
      expect(await names('resources/list', 'resources', 'uri', ADMIN)).toEqual(['docs://public', 'docs://secret']);
      expect(await names('resources/list', 'resources', 'uri', GUEST)).toEqual(['docs://public']);
      expect(await names('resources/templates/list', 'resourceTemplates', 'uriTemplate', ADMIN)).toEqual(['users://{id}', 'admin://{+path}']);
      expect(await names('resources/templates/list', 'resourceTemplates', 'uriTemplate', GUEST)).toEqual(['users://{id}']);
    }
    // The rule is never published, and the programmatic list still has everything.
    expect(mcp.tools.list().map((t) => t.name)).toEqual(['echo', 'delete_user']);
    const published = [...mcp.tools.list(), ...mcp.prompts.list(), ...mcp.resources.list(), ...mcp.resources.listTemplates()];
    expect(published).toHaveLength(8);
    expect(published.filter((definition) => 'visible' in definition)).toEqual([]);
  });

  it('the server-wide filter applies to every primitive, after each one’s own rule, and sees kind, id and definition', async () => {
    const seen: string[] = [];
    const mcp = server({
      visible: (primitive, caller) => {
        seen.push(`${primitive.kind}:${primitive.id}`);
        return caller.scope.roles.includes('admin') || !String((primitive.definition._meta as JsonObject | undefined)?.['example.com/tier'] ?? '').startsWith('paid');
      },
    });
    mcp.tool('forecast', { _meta: { 'example.com/tier': 'paid' } }, () => 'sunny');
    const guest = (await reply(mcp, req('tools/list'), GUEST)).result.tools.map((t: any) => t.name);
    expect(guest).toEqual(['echo']); // delete_user: its own rule; forecast: the filter
    expect((await reply(mcp, req('tools/list'), ADMIN)).result.tools.map((t: any) => t.name)).toEqual(['echo', 'delete_user', 'forecast']);
    expect(seen).toContain('tool:forecast');
    seen.length = 0;
    await reply(mcp, req('resources/templates/list'), GUEST);
    expect(seen).toEqual(['resourceTemplate:users://{id}']); // the own rule already hid admin://
    expect((await reply(mcp, req('tools/call', { name: 'forecast' }), GUEST)).error).toEqual({ code: -32602, message: "Unknown tool: 'forecast'" });
  });

  it('pagination pages through the caller’s own list', async () => {
    const mcp = new MiniMCP<Scope>({ name: 'p', version: '1', pageSize: 2 });
    for (let i = 0; i < 6; i++) mcp.tool(`t${i}`, { visible: i % 2 === 0 ? undefined : isAdmin }, () => 'x');
    const all = async (scope: Scope) => {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const result = (await reply(mcp, req('tools/list', cursor ? { cursor } : {}), scope)).result;
        names.push(...result.tools.map((t: any) => t.name));
        cursor = result.nextCursor;
      } while (cursor);
      return names;
    };
    expect(await all(GUEST)).toEqual(['t0', 't2', 't4']);
    expect(await all(ADMIN)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
  });
});

describe('a hidden primitive answers exactly like an unregistered one', () => {
  const mcp = server();
  // The same server without the hidden primitives at all: a guest's answers must not differ from its answers.
  const bare = server();
  bare.tools.remove('delete_user');
  bare.prompts.remove('audit');
  bare.resources.remove('docs://secret');
  bare.resources.remove('admin://{+path}');
  const same = async (message: unknown) => {
    const hidden = await mcp.dispatch(message, as(GUEST));
    expect(hidden).toEqual(await bare.dispatch(message, as(GUEST)));
    return hidden.reply as any;
  };

  it('tools/call (before argument, header and capability checks) in both eras', async () => {
    expect((await same(req('tools/call', { name: 'delete_user', arguments: { id: 'x' } }))).error)
      .toEqual({ code: -32602, message: "Unknown tool: 'delete_user'" });
    // 2026: the hidden tool needs sampling, undeclared here: a guest must still get -32602, never -32021.
    const hidden = await mcp.dispatch(modern('tools/call', { name: 'delete_user', arguments: {} }), as(GUEST));
    await same(modern('tools/call', { name: 'delete_user', arguments: {} }));
    expect(hidden).toEqual({ status: 200, reply: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: "Unknown tool: 'delete_user'" } } });
    const admin = await mcp.dispatch(modern('tools/call', { name: 'delete_user', arguments: {} }), as(ADMIN));
    expect((admin.reply as any).error.code).toBe(-32021);
    expect((await reply(mcp, req('tools/call', { name: 'delete_user', arguments: { id: '7' } }), ADMIN)).result.content)
      .toEqual([{ type: 'text', text: 'deleted 7' }]);
  });

  it('prompts/get, even with missing arguments', async () => {
    expect((await same(req('prompts/get', { name: 'audit' }))).error).toEqual({ code: -32602, message: "Unknown prompt: 'audit'" });
    expect((await reply(mcp, req('prompts/get', { name: 'audit', arguments: { user: 'u' } }), ADMIN)).result.messages).toHaveLength(1);
  });

  it('resources/read: -32602 with data.uri; a hidden static URI falls through to the templates; hidden templates are skipped', async () => {
    const hidden = await same(req('resources/read', { uri: 'docs://secret' }));
    await same(modern('resources/read', { uri: 'docs://secret' }));
    expect(hidden.error).toEqual({ code: -32602, message: 'Resource not found: docs://secret', data: { uri: 'docs://secret' } });
    const viaTemplate = await same(req('resources/read', { uri: 'admin://etc/passwd' }));
    expect(viaTemplate.error).toEqual({ code: -32602, message: 'Resource not found: admin://etc/passwd', data: { uri: 'admin://etc/passwd' } });
    expect((await reply(mcp, req('resources/read', { uri: 'admin://etc/passwd' }), ADMIN)).result.contents[0].text).toBe('admin');
    // A visible template serves a URI whose static registration is hidden, as if that were not registered.
    mcp.resource('users://42', { visible: isAdmin }, () => 'static 42');
    expect((await reply(mcp, req('resources/read', { uri: 'users://42' }), GUEST)).result.contents[0].text).toBe('user 42');
    expect((await reply(mcp, req('resources/read', { uri: 'users://42' }), ADMIN)).result.contents[0].text).toBe('static 42');
  });

  it('completion/complete for a hidden prompt or template', async () => {
    const complete = (ref: JsonObject, name: string) => req('completion/complete', { ref, argument: { name, value: '' } });
    expect((await same(complete({ type: 'ref/prompt', name: 'audit' }, 'user'))).error)
      .toEqual({ code: -32602, message: "Unknown prompt: 'audit'" });
    expect((await same(complete({ type: 'ref/resource', uri: 'admin://{+path}' }, 'path'))).error)
      .toEqual({ code: -32602, message: 'Unknown resource template: admin://{+path}' });
    expect((await reply(mcp, complete({ type: 'ref/prompt', name: 'audit' }, 'user'), ADMIN)).result.completion.values).toEqual(['root']);
    expect((await reply(mcp, complete({ type: 'ref/resource', uri: 'admin://{+path}' }, 'path'), ADMIN)).result.completion.values).toEqual(['etc']);
  });

  it('a rule that throws hides the primitive and goes to the server log', async () => {
    const errors: unknown[] = [];
    const m = new MiniMCP<Scope>({ name: 'x', version: '1', onError: (e) => errors.push(e) });
    m.tool('fragile', { visible: () => { throw new Error('role service down'); } }, () => 'x');
    expect((await reply(m, req('tools/list'), ADMIN)).result.tools).toEqual([]);
    expect((await reply(m, req('tools/call', { name: 'fragile' }), ADMIN)).error).toEqual({ code: -32602, message: "Unknown tool: 'fragile'" });
    expect(errors.map((e) => (e as Error).message)).toEqual(['role service down', 'role service down']);
  });

  it('refuses a rule that is not a function', () => {
    expect(() => new MiniMCP({ name: 'x', version: '1' }).tool('t', { visible: true as never }, () => 'x')).toThrow('Tool "t": visible must be a function');
    expect(() => new MiniMCP({ name: 'x', version: '1', visible: 'admin' as never })).toThrow('MiniMCP option visible must be a function');
  });

  it('the rule sees the request’s scope, era, protocol version and client capabilities', async () => {
    const callers: unknown[] = [];
    const m = new MiniMCP<Scope>({ name: 'x', version: '1' });
    m.tool('t', { visible: (c) => { callers.push({ scope: c.scope, era: c.era, v: c.protocolVersion, caps: c.client.capabilities }); return true; } }, () => 'x');
    await m.dispatch(req('tools/list', { _meta: { ...meta(), 'io.modelcontextprotocol/clientCapabilities': { extensions: { a: {} } } } }), as(GUEST));
    expect(callers).toEqual([{ scope: GUEST, era: 'stateless', v: V, caps: { extensions: { a: {} } } }]);
  });
});

describe('2026 cache hints', () => {
  const hints = (result: any) => ({ ttlMs: result.ttlMs, cacheScope: result.cacheScope });

  it('lists stay public without rules and turn private (with the configured ttl) on every page when the list depends on the caller', async () => {
    const plain = new MiniMCP({ name: 'x', version: '1' });
    plain.tool('a', {}, () => 'a');
    expect(hints(((await plain.handle(modern('tools/list'))) as any).result)).toEqual({ ttlMs: 60_000, cacheScope: 'public' });

    const mcp = server({ pageSize: 1, cache: { tools: { ttlMs: 1234, cacheScope: 'public' } } });
    const first = (await reply(mcp, modern('tools/list'), ADMIN)).result;
    expect(hints(first)).toEqual({ ttlMs: 1234, cacheScope: 'private' });
    const second = (await reply(mcp, modern('tools/list', { cursor: first.nextCursor }), ADMIN)).result;
    expect(second.tools.map((t: any) => t.name)).toEqual(['delete_user']);
    expect(hints(second)).toEqual({ ttlMs: 1234, cacheScope: 'private' });
    for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) {
      expect(hints((await reply(mcp, modern(method), GUEST)).result).cacheScope).toBe('private');
    }
    // 2025 results carry no hints at all.
    expect((await reply(mcp, req('tools/list'), ADMIN)).result.cacheScope).toBeUndefined();
  });

  it('a read of a resource only some callers may read is private, whatever its own hint says', async () => {
    const mcp = server();
    expect(hints((await reply(mcp, modern('resources/read', { uri: 'docs://secret' }), ADMIN)).result)).toEqual({ ttlMs: 5000, cacheScope: 'private' });
    const plain = new MiniMCP({ name: 'x', version: '1' });
    plain.resource('docs://open', { cache: { ttlMs: 5000, cacheScope: 'public' } }, () => 'open');
    expect(hints(((await plain.handle(modern('resources/read', { uri: 'docs://open' }))) as any).result)).toEqual({ ttlMs: 5000, cacheScope: 'public' });
  });
});

describe('no rules: the shared list as before', () => {
  it('a caller’s list is the registry’s one cached array; the first rule makes lists per caller', () => {
    const caller = { scope: GUEST, era: 'handshake' as const, protocolVersion: '2025-11-25', client: { capabilities: {}, info: undefined } };
    const tools = new ToolRegistry<Scope>(() => {}, undefined, new Visibility<Scope>(undefined, () => {}));
    tools.register({ name: 'a', handler: () => 'a' });
    expect(tools.personal).toBe(false);
    expect(tools.listFor(caller)).toBe(tools.list());
    expect(tools.visibleTo(caller)).toBe(tools.values());
    tools.register({ name: 'b', visible: isAdmin, handler: () => 'b' });
    expect(tools.personal).toBe(true);
    expect(tools.listFor(caller)).toEqual([tools.list()[0]]);
    tools.remove('b');
    expect(tools.personal).toBe(false);
    expect(tools.listFor(caller)).toBe(tools.list());
  });
});

describe('list_changed reaches only callers whose list changed', () => {
  it('2026 listen streams: an admin-only tool reaches the admin stream only; a public one reaches both', async () => {
    const mcp = server();
    const admin: any[] = [];
    const guest: any[] = [];
    const filter = { notifications: { toolsListChanged: true, resourcesListChanged: true } };
    const a = mcp.dispatch(modern('subscriptions/listen', filter, 'A'), { scope: ADMIN, send: (m) => admin.push(m) });
    const g = mcp.dispatch(modern('subscriptions/listen', filter, 'G'), { scope: GUEST, send: (m) => guest.push(m) });
    await sleep(5);
    mcp.tool('purge', { visible: isAdmin }, () => 'x');
    mcp.resource('docs://board-minutes', { visible: isAdmin }, () => 'x');
    mcp.tool('weather', {}, () => 'x');
    mcp.tools.remove('purge');
    const methods = (sent: any[]) => sent.slice(1).map((m) => m.method);
    expect(methods(admin)).toEqual([
      'notifications/tools/list_changed', 'notifications/resources/list_changed', 'notifications/tools/list_changed', 'notifications/tools/list_changed',
    ]);
    expect(methods(guest)).toEqual(['notifications/tools/list_changed']);
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'A' } });
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'G' } });
    await Promise.all([a, g]);
  });

  it('2025 stdio: the connection’s scope decides', async () => {
    const mcp = server();
    const output = new PassThrough();
    const lines: any[] = [];
    output.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n').map((l) => JSON.parse(l))));
    const input = new PassThrough();
    const conn = serveStdio(mcp, { input, output, scope: GUEST, exitOnEnd: false, guardStdout: false });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    await sleep(5);
    mcp.tool('purge', { visible: isAdmin }, () => 'x');
    mcp.prompt('secret-prompt', { visible: isAdmin }, () => 'x');
    mcp.prompt('hello', {}, () => 'x');
    await sleep(5);
    expect(lines).toEqual([{ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' }]);
    await conn.close();
  });

  it('2025 stdio: a rule may read the capabilities the client declared in initialize', async () => {
    const run = async (capabilities: JsonObject) => {
      const mcp = new MiniMCP<Scope>({ name: 'x', version: '1' });
      const output = new PassThrough();
      const lines: any[] = [];
      output.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n').map((l) => JSON.parse(l))));
      const input = new PassThrough();
      const conn = serveStdio(mcp, { input, output, scope: GUEST, exitOnEnd: false, guardStdout: false });
      input.write(`${JSON.stringify(req('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } }))}\n`);
      input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      await sleep(10);
      mcp.tool('sampler', { visible: (caller) => caller.client.capabilities.sampling !== undefined }, () => 'x');
      await sleep(5);
      await conn.close();
      return lines.slice(1).map((l) => l.method);
    };
    expect(await run({ sampling: {} })).toEqual(['notifications/tools/list_changed']);
    expect(await run({})).toEqual([]);
  });

  it('ListView passes every change on when no rule applies', () => {
    const lists = { personal: false, visibleTo: () => [] };
    const view = new ListView({ tools: lists, prompts: lists, resources: lists }, { scope: undefined, era: 'handshake', protocolVersion: '2025-11-25', client: { capabilities: {}, info: undefined } });
    expect(view.concerns({ type: 'tools/list_changed' })).toBe(true);
    expect(view.concerns({ type: 'tools/list_changed' })).toBe(true);
    expect(view.concerns({ type: 'resources/updated', uri: 'x://y' })).toBe(true);
  });
});
