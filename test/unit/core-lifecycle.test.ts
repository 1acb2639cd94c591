/** 2025 lifecycle: initialize negotiation, capabilities, ping, logging/setLevel, subscriptions, method not found. */
import { describe, expect, it } from 'vitest';
import { MiniMCP, type Connection } from '../../src/index.js';

const base = { name: 'life', version: '2.3.4', onError: () => {} };
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const initParams = (protocolVersion: unknown) => ({
  protocolVersion, capabilities: { sampling: {} }, clientInfo: { name: 'client', version: '0.1' },
});
const result = async (mcp: MiniMCP, method: string, params?: Record<string, unknown>, opts = {}) =>
  ((await mcp.handle(req(method, params), opts)) as any).result;

describe('initialize', () => {
  for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`echoes the supported version ${version}`, async () => {
      const r = await result(new MiniMCP(base), 'initialize', initParams(version));
      expect(r.protocolVersion).toBe(version);
    });
  }

  for (const version of ['1999-01-01', '2026-07-28', 'latest', 42, undefined]) {
    it(`answers ${String(version)} with 2025-11-25`, async () => {
      const outcome = await new MiniMCP(base).dispatch(req('initialize', initParams(version)));
      expect(outcome.status).toBe(200);
      expect((outcome.reply as any).result.protocolVersion).toBe('2025-11-25');
    });
  }

  it('returns exactly protocolVersion, capabilities and serverInfo (plus instructions when set)', async () => {
    const r = await result(new MiniMCP(base), 'initialize', initParams('2025-11-25'));
    expect(r).toEqual({
      protocolVersion: '2025-11-25',
      capabilities: { logging: {} },
      serverInfo: { name: 'life', version: '2.3.4' },
    });
    const withInfo = new MiniMCP({
      ...base, title: 'Life', description: 'd', websiteUrl: 'https://x.example', icons: [{ src: 'https://x.example/i.png' }],
      instructions: 'Use it well',
    });
    const r2 = await result(withInfo, 'initialize', initParams('2025-06-18'));
    expect(r2.serverInfo).toEqual({
      name: 'life', version: '2.3.4', title: 'Life', description: 'd', websiteUrl: 'https://x.example',
      icons: [{ src: 'https://x.example/i.png' }],
    });
    expect(r2.instructions).toBe('Use it well');
  });

  it('fills the connection with version, capabilities and client info', async () => {
    const connection: Connection = {};
    await new MiniMCP(base).handle(req('initialize', initParams('2025-03-26')), { connection });
    expect(connection.protocolVersion).toBe('2025-03-26');
    expect(connection.clientCapabilities).toEqual({ sampling: {} });
    expect(connection.clientInfo).toEqual({ name: 'client', version: '0.1' });
  });

  it('stores the negotiated (not the requested) version in the connection', async () => {
    const connection: Connection = {};
    await new MiniMCP(base).handle(req('initialize', initParams('2030-01-01')), { connection });
    expect(connection.protocolVersion).toBe('2025-11-25');
  });
});

describe('capabilities reflect what is registered', () => {
  const caps = async (mcp: MiniMCP) => (await result(mcp, 'initialize', initParams('2025-11-25'))).capabilities;

  it('an empty server advertises only logging', async () => {
    expect(await caps(new MiniMCP(base))).toEqual({ logging: {} });
  });

  it('tools, prompts and resources appear as they are registered', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('t', {}, () => 'x');
    expect(await caps(mcp)).toEqual({ logging: {}, tools: { listChanged: true } });
    mcp.prompt('p', {}, () => 'x');
    expect(await caps(mcp)).toEqual({ logging: {}, tools: { listChanged: true }, prompts: { listChanged: true } });
    mcp.resource('test://r', {}, () => 'x');
    expect(await caps(mcp)).toEqual({
      logging: {}, tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true },
    });
  });

  it('a resource template alone advertises resources', async () => {
    const mcp = new MiniMCP(base);
    mcp.resourceTemplate('test://{id}', {}, () => 'x');
    expect(await caps(mcp)).toEqual({ logging: {}, resources: { subscribe: true, listChanged: true } });
  });

  it('completions appear only when a completer exists (prompt or template)', async () => {
    const a = new MiniMCP(base);
    a.prompt('p', { arguments: [{ name: 'x' }] }, () => 'x');
    a.resourceTemplate('test://{id}', {}, () => 'x');
    expect((await caps(a)).completions).toBeUndefined();
    a.prompt('q', { arguments: [{ name: 'x' }], complete: { x: () => ['1'] } }, () => 'x');
    expect((await caps(a)).completions).toEqual({});

    const b = new MiniMCP(base);
    b.resourceTemplate('test://{id}', { complete: { id: () => ['1'] } }, () => 'x');
    expect((await caps(b)).completions).toEqual({});
  });

  it('removing the last tool withdraws the capability', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('t', {}, () => 'x');
    expect((await caps(mcp)).tools).toEqual({ listChanged: true });
    expect(mcp.tools.remove('t')).toBe(true);
    expect((await caps(mcp)).tools).toBeUndefined();
  });

  it('the capabilities option forces a primitive on before registration', async () => {
    const mcp = new MiniMCP({ ...base, capabilities: { tools: true, prompts: true, resources: true } });
    expect(await caps(mcp)).toEqual({
      logging: {}, tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true },
    });
    expect(await result(mcp, 'tools/list')).toEqual({ tools: [] });
  });
});

describe('ping', () => {
  it('answers exactly {}', async () => {
    const outcome = await new MiniMCP(base).dispatch(req('ping', undefined, 'p1'));
    expect(outcome).toEqual({ reply: { jsonrpc: '2.0', id: 'p1', result: {} }, status: 200 });
  });

  it('answers {} with params and _meta too', async () => {
    expect(await result(new MiniMCP(base), 'ping', { _meta: { progressToken: 1 } })).toEqual({});
  });
});

describe('logging/setLevel', () => {
  it('answers exactly {} and stores the level in the connection', async () => {
    const connection: Connection = {};
    const outcome = await new MiniMCP(base).dispatch(req('logging/setLevel', { level: 'warning' }), { connection });
    expect(outcome).toEqual({ reply: { jsonrpc: '2.0', id: 1, result: {} }, status: 200 });
    expect(connection.logLevel).toBe('warning');
  });

  for (const level of ['verbose', 'WARNING', '', 3, undefined]) {
    it(`rejects level ${JSON.stringify(level)} with -32602`, async () => {
      const connection: Connection = {};
      const outcome = await new MiniMCP(base).dispatch(req('logging/setLevel', { level }), { connection });
      expect(outcome.status).toBe(200);
      expect(outcome.reply).toEqual({
        jsonrpc: '2.0', id: 1, error: { code: -32602, message: `Invalid log level: ${String(level)}` },
      });
      expect(connection.logLevel).toBeUndefined();
    });
  }

  it('filters ctx.log of later requests on the same connection', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('talk', {}, (_args, ctx) => {
      for (const level of ['debug', 'info', 'warning', 'error', 'emergency'] as const) ctx.log(level, `at ${level}`, 'lg');
      return 'ok';
    });
    const connection: Connection = {};
    const sent: any[] = [];
    const send = (m: any) => sent.push(m);
    await mcp.handle(req('tools/call', { name: 'talk' }), { connection, send });
    expect(sent.map((m) => m.params.level)).toEqual(['debug', 'info', 'warning', 'error', 'emergency']);
    expect(sent[0]).toEqual({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', logger: 'lg', data: 'at debug' } });

    sent.length = 0;
    await mcp.handle(req('logging/setLevel', { level: 'warning' }), { connection });
    await mcp.handle(req('tools/call', { name: 'talk' }, 2), { connection, send });
    expect(sent.map((m) => m.params.level)).toEqual(['warning', 'error', 'emergency']);

    // Another connection is unaffected.
    sent.length = 0;
    await mcp.handle(req('tools/call', { name: 'talk' }, 3), { connection: {}, send });
    expect(sent).toHaveLength(5);
  });
});

describe('resources/subscribe and unsubscribe', () => {
  it('record the uri in the connection and answer {}', async () => {
    const mcp = new MiniMCP(base);
    mcp.resource('test://a', {}, () => 'a');
    const connection: Connection = {};
    expect(await mcp.handle(req('resources/subscribe', { uri: 'test://a' }), { connection }))
      .toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await mcp.handle(req('resources/subscribe', { uri: 'test://b' }, 2), { connection });
    expect([...connection.subscriptions!]).toEqual(['test://a', 'test://b']);
    expect(await mcp.handle(req('resources/unsubscribe', { uri: 'test://a' }, 3), { connection }))
      .toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect([...connection.subscriptions!]).toEqual(['test://b']);
  });

  it('needs a string uri (-32602)', async () => {
    const mcp = new MiniMCP(base);
    mcp.resource('test://a', {}, () => 'a');
    expect(await mcp.handle(req('resources/subscribe', { uri: 5 }))).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'params.uri must be a string' },
    });
  });

  it('is method not found when the server has no resources', async () => {
    const outcome = await new MiniMCP(base).dispatch(req('resources/subscribe', { uri: 'test://a' }));
    expect(outcome).toEqual({
      reply: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: resources/subscribe' } }, status: 200,
    });
  });
});

describe('method not found in 2025 (in-band, 200)', () => {
  for (const method of ['nope', 'tools/list', 'prompts/get', 'resources/read', 'completion/complete', 'server/discover', 'subscriptions/listen', '']) {
    it(`"${method}" on an empty server is -32601 with status 200`, async () => {
      const outcome = await new MiniMCP(base).dispatch(req(method, {}, 'x'));
      expect(outcome).toEqual({
        reply: { jsonrpc: '2.0', id: 'x', error: { code: -32601, message: `Method not found: ${method}` } },
        status: 200,
      });
    });
  }

  it('does not look methods up through the prototype chain', async () => {
    for (const method of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const outcome = await new MiniMCP(base).dispatch(req(method));
      expect((outcome.reply as any).error.code).toBe(-32601);
    }
  });
});

describe('constructor options', () => {
  it('rejects a missing name or version and bad numeric limits', () => {
    expect(() => new MiniMCP({ name: '', version: '1' })).toThrow(TypeError);
    expect(() => new MiniMCP({ name: 'a', version: '' })).toThrow(TypeError);
    expect(() => new MiniMCP({ name: 'a', version: '1', maxConcurrency: 0 })).toThrow(/maxConcurrency/);
    expect(() => new MiniMCP({ name: 'a', version: '1', idleTimeoutMs: 1.5 })).toThrow(/idleTimeoutMs/);
    expect(() => new MiniMCP({ name: 'a', version: '1', pageSize: 10_001 })).toThrow(/pageSize/);
    expect(() => new MiniMCP({ name: 'a', version: '1', cache: { tools: { ttlMs: -1, cacheScope: 'public' } } })).toThrow(/cache\.tools/);
    expect(() => new MiniMCP({ name: 'a', version: '1', cache: { reads: { ttlMs: 0, cacheScope: 'shared' as any } } })).toThrow(/cache\.reads/);
  });
});
