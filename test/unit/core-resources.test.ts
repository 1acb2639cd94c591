/** resources/list, resources/templates/list and resources/read: MIME defaults, templates, not found. */
import { describe, expect, it } from 'vitest';
import { MiniMCP, McpError, isResourceNotFound } from '../../src/index.js';

const base = { name: 'res', version: '1.0.0' };
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const read = (mcp: MiniMCP, uri: unknown) => mcp.dispatch(req('resources/read', { uri }));
const readResult = async (mcp: MiniMCP, uri: string) => {
  const outcome = await read(mcp, uri);
  expect(outcome.status).toBe(200);
  expect((outcome.reply as any).error).toBeUndefined();
  return (outcome.reply as any).result;
};

describe('resources/list and resources/templates/list', () => {
  it('publish definitions with a default name and the options as given', async () => {
    const mcp = new MiniMCP({ ...base, onError: () => {} });
    mcp.resource('file:///docs/readme.md', {
      title: 'Readme', description: 'd', mimeType: 'text/markdown', size: 12, annotations: { audience: ['user'], priority: 1 },
      icons: [{ src: 'https://x.example/i.png' }], _meta: { 'a.b/c': 1 },
    }, () => 'x');
    mcp.resource('config://app', { name: 'Config' }, () => 'x');
    mcp.resource('mem://dir/', {}, () => 'x');
    mcp.resourceTemplate('users://{id}/profile', { description: 'A user', mimeType: 'application/json' }, () => 'x');
    const list = ((await mcp.handle(req('resources/list'))) as any).result;
    expect(list).toEqual({
      resources: [
        {
          uri: 'file:///docs/readme.md', name: 'readme.md', title: 'Readme', description: 'd', mimeType: 'text/markdown', size: 12,
          annotations: { audience: ['user'], priority: 1 }, icons: [{ src: 'https://x.example/i.png' }], _meta: { 'a.b/c': 1 },
        },
        { uri: 'config://app', name: 'Config' },
        { uri: 'mem://dir/', name: 'dir' },
      ],
    });
    const templates = ((await mcp.handle(req('resources/templates/list'))) as any).result;
    expect(templates).toEqual({
      resourceTemplates: [{ uriTemplate: 'users://{id}/profile', name: 'profile', description: 'A user', mimeType: 'application/json' }],
    });
  });

  it('a template completer is not published', async () => {
    const mcp = new MiniMCP(base);
    mcp.resourceTemplate('t://{x}', { name: 'T', complete: { x: () => [] } }, () => 'x');
    const templates = ((await mcp.handle(req('resources/templates/list'))) as any).result.resourceTemplates;
    expect(templates).toEqual([{ uriTemplate: 't://{x}', name: 'T' }]);
  });

  it('rejects an invalid static URI at registration', () => {
    expect(() => new MiniMCP(base).resource('no-scheme', {}, () => 'x')).toThrow('Invalid resource URI: no-scheme');
  });
});

describe('resources/read: contents and MIME defaults', () => {
  const mcp = new MiniMCP({ ...base, onError: () => {} });
  mcp.resource('test://text', {}, () => 'hello');
  mcp.resource('test://json', {}, () => ({ a: [1, 2] }));
  mcp.resource('test://bytes', {}, () => new Uint8Array([0, 255, 16]));
  mcp.resource('test://buffer', {}, () => new Uint8Array([1, 2, 3]).buffer);
  mcp.resource('test://md', { mimeType: 'text/markdown' }, () => '# T');
  mcp.resource('test://png', { mimeType: 'image/png' }, () => new Uint8Array([137, 80]));
  mcp.resource('test://explicit', {}, () => ({ text: 'x', mimeType: 'text/csv' }));
  mcp.resource('test://explicit-blob', { mimeType: 'image/gif' }, () => ({ blob: 'R0lG' }));
  mcp.resource('test://many', {}, () => ['a', { b: 1 }]);
  mcp.resource('test://full', {}, () => ({ contents: [{ uri: 'test://other', text: 'as is' }], _meta: { 'a.b/c': 2 } }));
  mcp.resource('test://number', {}, () => 5);

  it('a string is text/plain', async () => {
    expect(await readResult(mcp, 'test://text')).toEqual({ contents: [{ uri: 'test://text', mimeType: 'text/plain', text: 'hello' }] });
  });

  it('an object is application/json text', async () => {
    expect(await readResult(mcp, 'test://json')).toEqual({
      contents: [{ uri: 'test://json', mimeType: 'application/json', text: '{"a":[1,2]}' }],
    });
    expect(await readResult(mcp, 'test://number')).toEqual({ contents: [{ uri: 'test://number', mimeType: 'application/json', text: '5' }] });
  });

  it('a Uint8Array (or ArrayBuffer) is an application/octet-stream base64 blob', async () => {
    expect(await readResult(mcp, 'test://bytes')).toEqual({
      contents: [{ uri: 'test://bytes', mimeType: 'application/octet-stream', blob: 'AP8Q' }],
    });
    expect(await readResult(mcp, 'test://buffer')).toEqual({
      contents: [{ uri: 'test://buffer', mimeType: 'application/octet-stream', blob: 'AQID' }],
    });
  });

  it('the registered mimeType wins over the defaults', async () => {
    expect(await readResult(mcp, 'test://md')).toEqual({ contents: [{ uri: 'test://md', mimeType: 'text/markdown', text: '# T' }] });
    expect(await readResult(mcp, 'test://png')).toEqual({ contents: [{ uri: 'test://png', mimeType: 'image/png', blob: 'iVA=' }] });
  });

  it('explicit {text|blob, mimeType} objects keep their own MIME type or get the registered one', async () => {
    expect(await readResult(mcp, 'test://explicit')).toEqual({ contents: [{ uri: 'test://explicit', text: 'x', mimeType: 'text/csv' }] });
    expect(await readResult(mcp, 'test://explicit-blob')).toEqual({
      contents: [{ uri: 'test://explicit-blob', blob: 'R0lG', mimeType: 'image/gif' }],
    });
  });

  it('arrays give several contents; a full ReadResourceResult passes through', async () => {
    expect(await readResult(mcp, 'test://many')).toEqual({
      contents: [
        { uri: 'test://many', mimeType: 'text/plain', text: 'a' },
        { uri: 'test://many', mimeType: 'application/json', text: '{"b":1}' },
      ],
    });
    expect(await readResult(mcp, 'test://full')).toEqual({ contents: [{ uri: 'test://other', text: 'as is' }], _meta: { 'a.b/c': 2 } });
  });

  it('matches static URIs in canonical form but echoes the URI the client sent', async () => {
    expect(await readResult(mcp, 'TEST://text')).toEqual({ contents: [{ uri: 'TEST://text', mimeType: 'text/plain', text: 'hello' }] });
  });

  it('mcp.resources.read works in code', async () => {
    expect(await mcp.resources.read('test://text')).toEqual({ contents: [{ uri: 'test://text', mimeType: 'text/plain', text: 'hello' }] });
  });
});

describe('resources/read: templates', () => {
  it('extracts percent-decoded variables and passes them to the reader', async () => {
    const mcp = new MiniMCP(base);
    const seen: unknown[] = [];
    mcp.resourceTemplate('files://{name}', {}, (uri, vars) => {
      seen.push([uri, vars]);
      return `file ${vars.name}`;
    });
    expect(await readResult(mcp, 'files://a%20b%C3%A9')).toEqual({
      contents: [{ uri: 'files://a%20b%C3%A9', mimeType: 'text/plain', text: 'file a bé' }],
    });
    expect(seen).toEqual([['files://a%20b%C3%A9', { name: 'a bé' }]]);
  });

  it('a reserved expansion {+path} takes slashes', async () => {
    const mcp = new MiniMCP(base);
    mcp.resourceTemplate('docs:///{+path}', {}, (_u, vars) => ({ path: vars.path }));
    expect(await readResult(mcp, 'docs:///a/b/c.md')).toEqual({
      contents: [{ uri: 'docs:///a/b/c.md', mimeType: 'application/json', text: '{"path":"a/b/c.md"}' }],
    });
  });

  it('the most specific template wins, whatever the registration order', async () => {
    const mcp = new MiniMCP(base);
    mcp.resourceTemplate('users://{+rest}', {}, () => 'generic');
    mcp.resourceTemplate('users://{id}', {}, (_u, v) => `id ${v.id}`);
    mcp.resourceTemplate('users://{id}/profile', {}, (_u, v) => `profile ${v.id}`);
    expect((await readResult(mcp, 'users://42/profile')).contents[0].text).toBe('profile 42');
    expect((await readResult(mcp, 'users://42')).contents[0].text).toBe('id 42');
    expect((await readResult(mcp, 'users://42/other')).contents[0].text).toBe('generic');
  });

  it('a static resource beats a template', async () => {
    const mcp = new MiniMCP(base);
    mcp.resourceTemplate('cfg://{name}', {}, () => 'template');
    mcp.resource('cfg://main', {}, () => 'static');
    expect((await readResult(mcp, 'cfg://main')).contents[0].text).toBe('static');
    expect((await readResult(mcp, 'cfg://other')).contents[0].text).toBe('template');
  });
});

describe('resources/read: errors', () => {
  const logged: unknown[] = [];
  const mcp = new MiniMCP({ ...base, onError: (e) => logged.push(e) });
  mcp.resource('test://a', {}, () => 'a');
  mcp.resource('test://undef', {}, () => undefined);
  mcp.resource('test://null', {}, () => null);
  mcp.resource('test://empty', {}, () => []);
  mcp.resource('test://throws', {}, () => {
    throw new Error('db password is hunter2');
  });
  mcp.resource('test://mcp', {}, () => {
    throw new McpError(1001, 'Not for you', { why: 'x' });
  });
  mcp.resourceTemplate('item://{id}', {}, (_u, v) => (v.id === 'known' ? 'ok' : undefined));

  const notFound = (uri: string) => ({
    reply: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: `Resource not found: ${uri}`, data: { uri } } }, status: 200,
  });

  it('an unknown URI is -32602 with data.uri (never -32002, never empty contents)', async () => {
    expect(await read(mcp, 'test://x')).toEqual(notFound('test://x'));
    expect(isResourceNotFound((await read(mcp, 'test://x')).reply!.error as any)).toBe(true);
  });

  it('a reader returning undefined, null or no contents means not found', async () => {
    expect(await read(mcp, 'test://undef')).toEqual(notFound('test://undef'));
    expect(await read(mcp, 'test://null')).toEqual(notFound('test://null'));
    expect(await read(mcp, 'test://empty')).toEqual(notFound('test://empty'));
    expect(await read(mcp, 'item://unknown')).toEqual(notFound('item://unknown'));
    expect((await readResult(mcp, 'item://known')).contents[0].text).toBe('ok');
  });

  it('a missing or non-string uri is -32602', async () => {
    expect((await mcp.dispatch(req('resources/read', {}))).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'params.uri must be a string' },
    });
    expect((await read(mcp, 42)).reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'params.uri must be a string' } });
  });

  it('a throwing reader is -32603 without its message', async () => {
    logged.length = 0;
    const outcome = await read(mcp, 'test://throws');
    expect(outcome).toEqual({ reply: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } }, status: 200 });
    expect(JSON.stringify(outcome)).not.toContain('hunter2');
    expect(logged).toHaveLength(1);
  });

  it('an McpError from a reader is sent as is', async () => {
    expect((await read(mcp, 'test://mcp')).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: 1001, message: 'Not for you', data: { why: 'x' } },
    });
  });

  it('a removed resource is not found', async () => {
    const m = new MiniMCP(base);
    m.resource('test://gone', {}, () => 'x');
    m.resource('test://keep', {}, () => 'x');
    expect(m.resources.remove('test://gone')).toBe(true);
    expect(await read(m, 'test://gone')).toEqual(notFound('test://gone'));
  });
});

describe('template variables in the host position (issue 26 item 2)', () => {
  it('reach the handler under their own names, with the case the client sent', async () => {
    const mcp = new MiniMCP(base);
    mcp.resourceTemplate('users://{userId}', {}, (_uri, { userId }) => `user ${userId}`);
    mcp.resourceTemplate('github://{owner}/{repo}', {}, (_uri, vars) => JSON.stringify(vars));
    expect((await readResult(mcp, 'users://Alice')).contents[0].text).toBe('user Alice');
    expect((await readResult(mcp, 'github://Anthropic/MiniMCP')).contents[0].text).toBe('{"owner":"Anthropic","repo":"MiniMCP"}');
  });
});
