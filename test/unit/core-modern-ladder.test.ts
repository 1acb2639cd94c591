/** 2026-07-28: era detection, the validation ladder (notes table steps 2-7), discover, result shaping, SEP-2243 headers. */
import { describe, expect, it } from 'vitest';
import { MiniMCP, type HeaderLookup } from '../../src/index.js';

const V = '2026-07-28';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CC = 'io.modelcontextprotocol/clientCapabilities';
const meta = (extra: Record<string, unknown> = {}) => ({ [PV]: V, [CC]: {}, ...extra });
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const modern = (method: string, params: Record<string, unknown> = {}, id: string | number = 1) =>
  req(method, { ...params, _meta: meta(params._meta as Record<string, unknown> | undefined) }, id);
const headers = (method: string, extra: Record<string, string> = {}) =>
  new Headers({ 'MCP-Protocol-Version': V, 'Mcp-Method': method, ...extra });

function server() {
  const mcp = new MiniMCP({ name: 'ladder', version: '3.0.0', onError: () => {}, instructions: 'Be kind' });
  mcp.tool('echo', { input: { type: 'object', properties: { text: { type: 'string' } } } }, (a) => String(a.text));
  mcp.tool('sampler', { requires: { sampling: {} } }, () => 'sampled');
  mcp.tool('elicitUrl', { requires: { elicitation: { url: {} } } }, () => 'ok');
  mcp.tool('regional', {
    input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer', 'x-mcp-header': 'N' } } },
  }, (a) => `${a.region}/${a.n}`);
  mcp.prompt('greet', {}, () => 'hello');
  mcp.resource('test://a', {}, () => 'A');
  return mcp;
}

const err = (id: string | number, code: number, message?: string | RegExp) => ({
  jsonrpc: '2.0', id, error: message instanceof RegExp || message === undefined ? expect.objectContaining({ code }) : { code, message },
});

describe('era detection', () => {
  it('a request with no _meta and no headers is 2025 (no resultType)', async () => {
    expect(((await server().handle(req('tools/list'))) as any).result.resultType).toBeUndefined();
  });

  it('a 2025 request carrying only _meta.progressToken stays 2025', async () => {
    const mcp = server();
    const reply = (await mcp.handle(req('tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: { progressToken: 5 } }))) as any;
    expect(reply.result).toEqual({ content: [{ type: 'text', text: 'x' }] });
    expect((await mcp.handle(req('ping', { _meta: { progressToken: 'p' } }))) as any).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('a 2025 HTTP request (legacy header) stays 2025 and 2026 methods are unknown to it (200)', async () => {
    const mcp = server();
    const outcome = await mcp.dispatch(req('tools/list'), { headers: new Headers({ 'MCP-Protocol-Version': '2025-11-25' }) });
    expect(outcome.status).toBe(200);
    expect((outcome.reply as any).result.resultType).toBeUndefined();
    const discover = await mcp.dispatch(req('server/discover'), { headers: new Headers({ 'MCP-Protocol-Version': '2025-06-18' }) });
    expect(discover).toEqual({ reply: err(1, -32601, 'Method not found: server/discover'), status: 200 });
  });

  it('a 2025 HTTP request with an unsupported dated header is 400 -32600', async () => {
    const outcome = await server().dispatch(req('tools/list'), { headers: new Headers({ 'MCP-Protocol-Version': '2024-01-01' }) });
    expect(outcome.status).toBe(400);
    expect((outcome.reply as any).error.code).toBe(-32600);
    expect((outcome.reply as any).id).toBe(1);
  });

  it('a request on a 2025 session (Mcp-Session-Id) is 2025: no resultType', async () => {
    const outcome = await server().dispatch(req('tools/list'), { headers: new Headers({ 'MCP-Protocol-Version': '2025-11-25', 'Mcp-Session-Id': 's1' }) });
    expect((outcome.reply as any).result.resultType).toBeUndefined();
  });
});

describe('ladder step 2: _meta fields (400 -32602 with the request id)', () => {
  const cases: Array<[string, Record<string, unknown> | undefined]> = [
    ['no params', undefined],
    ['no _meta', {}],
    ['_meta without protocolVersion', { _meta: { [CC]: {} } }],
    ['_meta with non-string protocolVersion', { _meta: { [PV]: 20260728, [CC]: {} } }],
    ['_meta without clientCapabilities', { _meta: { [PV]: V } }],
    ['clientCapabilities not an object', { _meta: { [PV]: V, [CC]: 'all' } }],
    ['clientCapabilities an array', { _meta: { [PV]: V, [CC]: [] } }],
  ];
  for (const [label, params] of cases) {
    it(`${label} -> 400 -32602`, async () => {
      const outcome = await server().dispatch(req('tools/list', params, 'm1'), { headers: headers('tools/list') });
      expect(outcome.status).toBe(400);
      const reply = outcome.reply as any;
      expect(reply.id).toBe('m1');
      expect(reply.error.code).toBe(-32602);
      expect(reply.error.message).toMatch(/^Missing _meta\["io\.modelcontextprotocol\/(protocolVersion|clientCapabilities)"\]$/);
    });
  }

  it('without headers (stdio) modern _meta with a missing field is still -32602', async () => {
    const outcome = await server().dispatch(req('tools/list', { _meta: { [CC]: {} } }));
    expect(outcome.status).toBe(400);
    expect(outcome.reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: `Missing _meta["${PV}"]` } });
  });

  it('names clientCapabilities when only it is missing', async () => {
    const outcome = await server().dispatch(req('tools/list', { _meta: { [PV]: V } }));
    expect(outcome.reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: `Missing _meta["${CC}"]` } });
  });

  it('clientInfo is optional', async () => {
    const outcome = await server().dispatch(modern('tools/list'), { headers: headers('tools/list') });
    expect(outcome.status).toBe(200);
  });
});

describe('ladder step 3: MCP-Protocol-Version header vs _meta (400 -32020)', () => {
  it('header 2026-07-28 with _meta v999.0.0 is -32020', async () => {
    const outcome = await server().dispatch(
      req('tools/list', { _meta: { [PV]: 'v999.0.0', [CC]: {} } }, 302),
      { headers: headers('tools/list') },
    );
    expect(outcome.status).toBe(400);
    expect((outcome.reply as any).id).toBe(302);
    expect((outcome.reply as any).error.code).toBe(-32020);
    expect((outcome.reply as any).error.data).toBeUndefined();
  });

  it('header 2025-11-25 with modern _meta 2026-07-28 is -32020', async () => {
    const outcome = await server().dispatch(modern('tools/list'), {
      headers: new Headers({ 'MCP-Protocol-Version': '2025-11-25', 'Mcp-Method': 'tools/list' }),
    });
    expect(outcome.status).toBe(400);
    expect((outcome.reply as any).error.code).toBe(-32020);
  });

  it('comes before the version check', async () => {
    const outcome = await server().dispatch(
      req('tools/list', { _meta: { [PV]: 'v1', [CC]: {} } }),
      { headers: new Headers({ 'MCP-Protocol-Version': 'v2', 'Mcp-Method': 'tools/list' }) },
    );
    expect((outcome.reply as any).error.code).toBe(-32020);
  });
});

describe('ladder step 4: unsupported version (400 -32022)', () => {
  it('v999.0.0 in header and _meta: data {supported, requested}', async () => {
    const mcp = server();
    const outcome = await mcp.dispatch(
      req('tools/list', { _meta: { [PV]: 'v999.0.0', [CC]: {} } }, 301),
      { headers: new Headers({ 'MCP-Protocol-Version': 'v999.0.0', 'Mcp-Method': 'tools/list' }) },
    );
    expect(outcome.status).toBe(400);
    expect(outcome.reply).toEqual({
      jsonrpc: '2.0', id: 301,
      error: { code: -32022, message: 'Unsupported protocol version: v999.0.0', data: { supported: [V], requested: 'v999.0.0' } },
    });
    const discover = ((await mcp.dispatch(modern('server/discover'), { headers: headers('server/discover') })).reply as any).result;
    for (const v of (outcome.reply as any).error.data.supported) expect(discover.supportedVersions).toContain(v);
  });

  it('without headers too (stdio probe): server/discover with an unknown version is -32022', async () => {
    const outcome = await server().dispatch(req('server/discover', { _meta: { [PV]: '2027-01-01', [CC]: {} } }));
    expect(outcome.reply).toEqual({
      jsonrpc: '2.0', id: 1,
      error: { code: -32022, message: 'Unsupported protocol version: 2027-01-01', data: { supported: [V], requested: '2027-01-01' } },
    });
  });

  it('a 2025 version inside modern _meta is -32022', async () => {
    const outcome = await server().dispatch(req('tools/list', { _meta: { [PV]: '2025-11-25', [CC]: {} } }));
    expect((outcome.reply as any).error.code).toBe(-32022);
    expect((outcome.reply as any).error.data).toEqual({ supported: [V], requested: '2025-11-25' });
  });
});

describe('ladder step 5: Mcp-Method / Mcp-Name (400 -32020)', () => {
  it('missing Mcp-Method is -32020', async () => {
    const outcome = await server().dispatch(modern('tools/list', {}, 'x'), { headers: new Headers({ 'MCP-Protocol-Version': V }) });
    expect(outcome).toEqual({ reply: err('x', -32020, 'Missing Mcp-Method header'), status: 400 });
  });

  it('a mismatched Mcp-Method is -32020', async () => {
    const outcome = await server().dispatch(modern('tools/list'), { headers: headers('tools/call') });
    expect(outcome.status).toBe(400);
    expect((outcome.reply as any).error.code).toBe(-32020);
  });

  it('Mcp-Method is case-sensitive in its value', async () => {
    const outcome = await server().dispatch(modern('tools/list'), { headers: headers('Tools/List') });
    expect((outcome.reply as any).error.code).toBe(-32020);
  });

  it('header names are case-insensitive and values are trimmed', async () => {
    // A raw lookup that does what a header map does (case-insensitive names) but does not trim values.
    const raw: Record<string, string> = {
      'mcp-protocol-version': V, 'mcp-method': '  tools/call\t', 'mcp-name': ' echo ',
    };
    const lookup: HeaderLookup = { get: (name) => raw[name.toLowerCase()] ?? null };
    const outcome = await server().dispatch(modern('tools/call', { name: 'echo', arguments: { text: 'hi' } }), { headers: lookup });
    expect(outcome.status).toBe(200);
    expect((outcome.reply as any).result).toEqual({ content: [{ type: 'text', text: 'hi' }], resultType: 'complete' });
    const upper = new Headers({ 'MCP-PROTOCOL-VERSION': V, 'MCP-METHOD': 'tools/list' });
    expect((await server().dispatch(modern('tools/list'), { headers: upper })).status).toBe(200);
  });

  it('tools/call needs Mcp-Name equal to params.name', async () => {
    const mcp = server();
    const call = modern('tools/call', { name: 'echo', arguments: { text: 'a' } }, 9);
    expect(await mcp.dispatch(call, { headers: headers('tools/call') })).toEqual({ reply: err(9, -32020, 'Missing Mcp-Name header'), status: 400 });
    const wrong = await mcp.dispatch(call, { headers: headers('tools/call', { 'Mcp-Name': 'other' }) });
    expect(wrong).toEqual({ reply: err(9, -32020, 'Mcp-Name header does not match params.name'), status: 400 });
    const ok = await mcp.dispatch(call, { headers: headers('tools/call', { 'Mcp-Name': 'echo' }) });
    expect(ok.status).toBe(200);
    const b64 = await mcp.dispatch(call, { headers: headers('tools/call', { 'Mcp-Name': `=?base64?${btoa('echo')}?=` }) });
    expect(b64.status).toBe(200);
  });

  it('prompts/get and resources/read need Mcp-Name too', async () => {
    const mcp = server();
    const get = await mcp.dispatch(modern('prompts/get', { name: 'greet' }), { headers: headers('prompts/get', { 'Mcp-Name': 'nope' }) });
    expect((get.reply as any).error.code).toBe(-32020);
    const read = await mcp.dispatch(modern('resources/read', { uri: 'test://a' }), { headers: headers('resources/read', { 'Mcp-Name': 'test://a' }) });
    expect(read.status).toBe(200);
    expect((read.reply as any).result.contents[0].text).toBe('A');
    const readBad = await mcp.dispatch(modern('resources/read', { uri: 'test://a' }), { headers: headers('resources/read') });
    expect((readBad.reply as any).error.code).toBe(-32020);
  });

  it('comes before method lookup: a missing Mcp-Method beats an unknown method', async () => {
    const outcome = await server().dispatch(modern('no/such'), { headers: new Headers({ 'MCP-Protocol-Version': V }) });
    expect((outcome.reply as any).error.code).toBe(-32020);
  });
});

describe('ladder step 6: method not found (404 -32601)', () => {
  for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']) {
    it(`removed method ${method} is 404 -32601 with the id`, async () => {
      const params = method === 'initialize'
        ? { protocolVersion: V, capabilities: {}, clientInfo: { name: 'c', version: '1' } }
        : method.startsWith('resources/') ? { uri: 'test://a' } : method === 'logging/setLevel' ? { level: 'info' } : {};
      const outcome = await server().dispatch(modern(method, params, 'r'), { headers: headers(method) });
      expect(outcome).toEqual({ reply: err('r', -32601, `Method not found: ${method}`), status: 404 });
    });
  }

  it('an unknown method is 404, also without headers', async () => {
    expect(await server().dispatch(modern('foo/bar'), { headers: headers('foo/bar') })).toEqual({
      reply: err(1, -32601, 'Method not found: foo/bar'), status: 404,
    });
    expect((await server().dispatch(modern('foo/bar'))).status).toBe(404);
  });

  it('a method behind an unadvertised capability is 404', async () => {
    const empty = new MiniMCP({ name: 'e', version: '1' });
    for (const method of ['tools/list', 'prompts/list', 'resources/read', 'completion/complete']) {
      const outcome = await empty.dispatch(modern(method), { headers: headers(method) });
      expect(outcome).toEqual({ reply: err(1, -32601, `Method not found: ${method}`), status: 404 });
    }
  });
});

describe('ladder step 7: required client capability (400 -32021)', () => {
  it('a tool that requires sampling, called without it, is -32021 with data.requiredCapabilities', async () => {
    const outcome = await server().dispatch(modern('tools/call', { name: 'sampler' }, 'q'), {
      headers: headers('tools/call', { 'Mcp-Name': 'sampler' }),
    });
    expect(outcome.status).toBe(400);
    expect(outcome.reply).toEqual({
      jsonrpc: '2.0', id: 'q',
      error: { code: -32021, message: "Tool 'sampler' needs the client capability sampling", data: { requiredCapabilities: { sampling: {} } } },
    });
  });

  it('declared capabilities let it run', async () => {
    const outcome = await server().dispatch(
      req('tools/call', { name: 'sampler', _meta: meta({ [CC]: { sampling: {} } }) }),
      { headers: headers('tools/call', { 'Mcp-Name': 'sampler' }) },
    );
    expect(outcome.status).toBe(200);
    expect((outcome.reply as any).result).toEqual({ content: [{ type: 'text', text: 'sampled' }], resultType: 'complete' });
  });

  it('sub-capabilities are checked: elicitation {} does not cover elicitation.url', async () => {
    const mcp = server();
    const without = await mcp.dispatch(req('tools/call', { name: 'elicitUrl', _meta: meta({ [CC]: { elicitation: {} } }) }));
    expect(without.status).toBe(400);
    expect((without.reply as any).error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: { url: {} } } } });
    const withUrl = await mcp.dispatch(req('tools/call', { name: 'elicitUrl', _meta: meta({ [CC]: { elicitation: { url: {} } } }) }));
    expect(withUrl.status).toBe(200);
  });

  it('2025 requests are not gated by requires', async () => {
    expect(((await server().handle(req('tools/call', { name: 'sampler' }))) as any).result).toEqual({
      content: [{ type: 'text', text: 'sampled' }],
    });
  });
});

describe('server/discover', () => {
  it('returns versions, capabilities, instructions, serverInfo in _meta, resultType and cache hints', async () => {
    const outcome = await server().dispatch(modern('server/discover', {}, 'd'), { headers: headers('server/discover') });
    expect(outcome).toEqual({
      status: 200,
      reply: {
        jsonrpc: '2.0', id: 'd',
        result: {
          supportedVersions: [V],
          capabilities: {
            logging: {}, tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true },
          },
          instructions: 'Be kind',
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'ladder', version: '3.0.0' } },
          resultType: 'complete',
          ttlMs: 60_000,
          cacheScope: 'public',
        },
      },
    });
    expect((outcome.reply as any).result.serverInfo).toBeUndefined();
  });

  it('uses the configured cache hints', async () => {
    const mcp = new MiniMCP({ name: 'c', version: '1', cache: { discover: { ttlMs: 5, cacheScope: 'private' } } });
    const r = ((await mcp.handle(modern('server/discover'))) as any).result;
    expect(r.ttlMs).toBe(5);
    expect(r.cacheScope).toBe('private');
    expect(r.instructions).toBeUndefined();
  });
});

describe('result shaping', () => {
  const call = async (mcp: MiniMCP, method: string, params: Record<string, unknown> = {}) =>
    ((await mcp.handle(modern(method, params))) as any).result;

  it('lists carry resultType and the list cache hints', async () => {
    const mcp = server();
    for (const [method, key] of [['tools/list', 'tools'], ['prompts/list', 'prompts'], ['resources/list', 'resources'], ['resources/templates/list', 'resourceTemplates']] as const) {
      const r = await call(mcp, method);
      expect(Array.isArray(r[key])).toBe(true);
      expect(r.resultType).toBe('complete');
      expect(r.ttlMs).toBe(60_000);
      expect(r.cacheScope).toBe('public');
    }
  });

  it('reads carry the read cache hints (0, private by default)', async () => {
    expect(await call(server(), 'resources/read', { uri: 'test://a' })).toEqual({
      contents: [{ uri: 'test://a', mimeType: 'text/plain', text: 'A' }], resultType: 'complete', ttlMs: 0, cacheScope: 'private',
    });
  });

  it('a resource (or template) with its own cache hint overrides the server default; the hint is not published', async () => {
    const mcp = new MiniMCP({ name: 'c', version: '1', cache: { reads: { ttlMs: 7, cacheScope: 'private' }, tools: { ttlMs: 1, cacheScope: 'private' } } });
    mcp.resource('test://pub', { cache: { ttlMs: 5000, cacheScope: 'public' } }, () => 'p');
    mcp.resource('test://def', {}, () => 'd');
    mcp.resourceTemplate('tpl://{x}', { cache: { ttlMs: 9, cacheScope: 'public' } }, (_u, v) => String(v.x));
    mcp.tool('t', {}, () => 'x');
    expect(await call(mcp, 'resources/read', { uri: 'test://pub' })).toEqual({
      contents: [{ uri: 'test://pub', mimeType: 'text/plain', text: 'p' }], resultType: 'complete', ttlMs: 5000, cacheScope: 'public',
    });
    expect(await call(mcp, 'resources/read', { uri: 'test://def' })).toMatchObject({ ttlMs: 7, cacheScope: 'private' });
    expect(await call(mcp, 'resources/read', { uri: 'tpl://a' })).toMatchObject({ ttlMs: 9, cacheScope: 'public' });
    expect(await call(mcp, 'tools/list')).toMatchObject({ ttlMs: 1, cacheScope: 'private' });
    expect(await call(mcp, 'prompts/list').catch(() => undefined)).toBeUndefined(); // no prompts: -32601
    const listed = ((await mcp.handle(req('resources/list'))) as any).result.resources;
    expect(listed).toEqual([{ uri: 'test://pub', name: 'pub' }, { uri: 'test://def', name: 'def' }]);
    const templates = ((await mcp.handle(req('resources/templates/list'))) as any).result.resourceTemplates;
    expect(templates).toEqual([{ uriTemplate: 'tpl://{x}', name: '{x}' }]);
    // 2025 reads never carry hints.
    expect(((await mcp.handle(req('resources/read', { uri: 'test://pub' }))) as any).result).toEqual({
      contents: [{ uri: 'test://pub', mimeType: 'text/plain', text: 'p' }],
    });
  });

  it('tools/call, prompts/get and completion carry resultType but no cache hints', async () => {
    const mcp = server();
    expect(await call(mcp, 'tools/call', { name: 'echo', arguments: { text: 't' } })).toEqual({
      content: [{ type: 'text', text: 't' }], resultType: 'complete',
    });
    expect(await call(mcp, 'prompts/get', { name: 'greet' })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }], resultType: 'complete',
    });
    const m = new MiniMCP({ name: 'c', version: '1' });
    m.prompt('p', { arguments: [{ name: 'a' }], complete: { a: () => ['x'] } }, () => 'x');
    expect(await call(m, 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } })).toEqual({
      completion: { values: ['x'], total: 1, hasMore: false }, resultType: 'complete',
    });
  });

  it('2025 results never get resultType or cache hints', async () => {
    const mcp = server();
    for (const [method, params] of [
      ['tools/list', {}], ['resources/read', { uri: 'test://a' }], ['tools/call', { name: 'echo', arguments: { text: 'x' } }], ['prompts/get', { name: 'greet' }],
    ] as const) {
      const r = ((await mcp.handle(req(method, params))) as any).result;
      expect(r.resultType).toBeUndefined();
      expect(r.ttlMs).toBeUndefined();
      expect(r.cacheScope).toBeUndefined();
    }
  });

  it('an invalid logLevel in _meta is -32602', async () => {
    const outcome = await server().dispatch(modern('tools/list', { _meta: { 'io.modelcontextprotocol/logLevel': 'loud' } }));
    expect((outcome.reply as any).error).toEqual({ code: -32602, message: 'Invalid log level: loud' });
  });
});

describe('Mcp-Param-* headers (x-mcp-header)', () => {
  const regional = (args: Record<string, unknown>, extra: Record<string, string>) =>
    server().dispatch(modern('tools/call', { name: 'regional', arguments: args }, 'p'), {
      headers: headers('tools/call', { 'Mcp-Name': 'regional', ...extra }),
    });

  it('the raw JSON Schema with x-mcp-header is published unchanged', async () => {
    const tools = ((await server().handle(req('tools/list'))) as any).result.tools;
    expect(tools.find((t: any) => t.name === 'regional').inputSchema).toEqual({
      type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer', 'x-mcp-header': 'N' } },
    });
  });

  it('accepts a plain matching value', async () => {
    const outcome = await regional({ region: 'eu-west-1' }, { 'Mcp-Param-Region': 'eu-west-1' });
    expect(outcome.status).toBe(200);
    expect((outcome.reply as any).result.content[0].text).toBe('eu-west-1/undefined');
  });

  it('accepts a =?base64?...?= encoded value (non-ASCII)', async () => {
    const value = 'Zürich 東京';
    const encoded = `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
    const outcome = await regional({ region: value }, { 'Mcp-Param-Region': encoded });
    expect(outcome.status).toBe(200);
    expect((outcome.reply as any).result.content[0].text).toBe(`${value}/undefined`);
  });

  it('compares integers numerically', async () => {
    const outcome = await regional({ region: 'x', n: 42 }, { 'Mcp-Param-Region': 'x', 'Mcp-Param-N': '42' });
    expect(outcome.status).toBe(200);
    const bad = await regional({ region: 'x', n: 42 }, { 'Mcp-Param-Region': 'x', 'Mcp-Param-N': '43' });
    expect(bad.status).toBe(400);
  });

  // BUG: integers are compared with Number(header), so non-decimal spellings of the body value
  // ('0x2A', '0b101010', '4.2e1') pass, while SEP-2243 mirrors an integer "in decimal". An
  // intermediary routing on the header string then sees a value that differs from the body's.
  it('an integer header must be the decimal spelling of the body value', async () => {
    for (const spelling of ['0x2A', '0b101010', '0o52', '4.2e1']) {
      const outcome = await regional({ region: 'x', n: 42 }, { 'Mcp-Param-Region': 'x', 'Mcp-Param-N': spelling });
      expect(outcome.status, spelling).toBe(400);
      expect((outcome.reply as any).error.code).toBe(-32020);
    }
  });

  it('a mismatched value is 400 -32020', async () => {
    expect(await regional({ region: 'eu' }, { 'Mcp-Param-Region': 'us' })).toEqual({
      reply: err('p', -32020, 'Mcp-Param-Region header does not match arguments.region'), status: 400,
    });
  });

  it('a missing header is 400 -32020', async () => {
    expect(await regional({ region: 'eu' }, {})).toEqual({ reply: err('p', -32020, 'Missing Mcp-Param-Region header'), status: 400 });
  });

  it('bad base64 is 400 -32020', async () => {
    for (const bad of ['=?base64?%%%?=', '=?base64?abc?=', `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`]) {
      expect(await regional({ region: 'eu' }, { 'Mcp-Param-Region': bad })).toEqual({
        reply: err('p', -32020, 'Mcp-Param-Region header has invalid Base64'), status: 400,
      });
    }
  });

  it('an argument that is absent needs no header', async () => {
    const outcome = await regional({}, {});
    expect(outcome.status).toBe(200);
  });

  it('x-mcp-header is checked at registration', () => {
    const mcp = new MiniMCP({ name: 'x', version: '1' });
    expect(() => mcp.tool('a', { input: { type: 'object', properties: { p: { type: 'number', 'x-mcp-header': 'P' } } } }, () => 1))
      .toThrow(/needs type string, integer or boolean/);
    expect(() => mcp.tool('b', { input: { type: 'object', properties: { p: { type: 'string', 'x-mcp-header': 'bad header' } } } }, () => 1))
      .toThrow(/RFC 9110 token/);
    expect(() => mcp.tool('c', { input: { type: 'object', properties: { p: { type: 'string', 'x-mcp-header': '' } } } }, () => 1))
      .toThrow(/RFC 9110 token/);
    expect(() => mcp.tool('d', {
      input: { type: 'object', properties: { p: { type: 'string', 'x-mcp-header': 'Dup' }, q: { type: 'string', 'x-mcp-header': 'dup' } } },
    }, () => 1)).toThrow(/declared twice/);
  });

  it('2025 requests and requests without headers do not check Mcp-Param-*', async () => {
    const mcp = server();
    expect(((await mcp.handle(req('tools/call', { name: 'regional', arguments: { region: 'eu' } }))) as any).result.content[0].text).toBe('eu/undefined');
    expect(((await mcp.handle(modern('tools/call', { name: 'regional', arguments: { region: 'eu' } }))) as any).result.content[0].text).toBe('eu/undefined');
  });
});
