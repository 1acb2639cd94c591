/** MCP Apps helpers: the wire they write, compared with @modelcontextprotocol/ext-apps's own helpers and schemas. */
import {
  McpUiResourceMetaSchema, McpUiToolMetaSchema, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { EXTENSION_ID, getUiCapability, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { describe, expect, it } from 'vitest';
import {
  APP_MIME_TYPE, APPS_EXTENSION, LEGACY_RESOURCE_URI_KEY, MiniMCP, addApp, addAppResource, addAppTool, appsCapability, supportsApps,
  type Connection, type JsonObject,
} from '../../src/index.js';

const base = { name: 'apps', version: '1.0.0', onError: () => {} };
const req = (method: string, params: JsonObject = {}, id: string | number = 1) => ({ jsonrpc: '2.0', id, method, params });
const V = '2026-07-28';
const modern = (method: string, params: JsonObject, caps: JsonObject) =>
  req(method, { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': caps } });
const result = async (mcp: MiniMCP<any>, message: unknown, opts = {}) => {
  const reply = (await mcp.dispatch(message, opts)).reply as any;
  expect(reply.error).toBeUndefined();
  return reply.result;
};
const PAGE = '<!doctype html><html><body>hi</body></html>';

describe('constants', () => {
  it('match the package’s', () => {
    expect([APP_MIME_TYPE, APPS_EXTENSION, LEGACY_RESOURCE_URI_KEY]).toEqual([RESOURCE_MIME_TYPE, EXTENSION_ID, RESOURCE_URI_META_KEY]);
  });
});

describe('addAppTool', () => {
  it('writes the _meta the package’s own registration writes, keeping other _meta keys and other ui fields', async () => {
    const mcp = new MiniMCP(base);
    addAppTool(mcp, 'weather', {
      app: 'ui://weather/view.html', visibility: ['model', 'app'], description: 'w', _meta: { 'example.com/x': 1, ui: { extra: true } },
    }, () => 'sunny');
    const tool = (await result(mcp, req('tools/list'))).tools[0];
    // What the package's helper hands to an SDK server for the same declaration.
    let theirs: any;
    registerAppTool({ registerTool: (_name: string, config: any) => (theirs = config) } as never, 'weather', {
      description: 'w', _meta: { 'example.com/x': 1, ui: { extra: true, resourceUri: 'ui://weather/view.html', visibility: ['model', 'app'] } },
    } as never, (() => ({ content: [] })) as never);
    expect(tool._meta).toEqual(theirs._meta);
    expect(tool._meta).toEqual({
      'example.com/x': 1, ui: { extra: true, resourceUri: 'ui://weather/view.html', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://weather/view.html',
    });
    expect(McpUiToolMetaSchema.safeParse(tool._meta.ui).success).toBe(true);
  });

  it('leaves visibility out when not given (the default: model and app), and removes exactly its tool', async () => {
    const mcp = new MiniMCP(base);
    const remove = addAppTool(mcp, 't', { app: 'ui://a/b' }, () => 'x');
    expect((await result(mcp, req('tools/list'))).tools[0]._meta).toEqual({ ui: { resourceUri: 'ui://a/b' }, 'ui/resourceUri': 'ui://a/b' });
    expect(remove()).toBe(true);
    expect(mcp.tools.list()).toEqual([]);
  });

  it('refuses a URI that is not ui:// and an unknown visibility', () => {
    const mcp = new MiniMCP(base);
    expect(() => addAppTool(mcp, 't', { app: 'https://x.example/app.html' }, () => 'x')).toThrow('Tool "t": app must be a ui:// URI, got "https://x.example/app.html"');
    expect(() => addAppTool(mcp, 't', { app: 'ui://a', visibility: ['user' as never] }, () => 'x')).toThrow('visibility must be an array of "model" and "app"');
  });
});

describe('addAppResource', () => {
  it('serves text/html;profile=mcp-app (the package’s default) with csp, permissions, domain and prefersBorder in the listing and the contents', async () => {
    const mcp = new MiniMCP(base);
    const ui = {
      csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'], frameDomains: [], baseUriDomains: ['https://cdn.example.com'] },
      permissions: { clipboardWrite: {}, camera: {} },
      domain: 'abc.apps.example.net',
      prefersBorder: false,
    };
    addAppResource(mcp, 'ui://board/view.html', { title: 'Board', description: 'A board', ...ui }, PAGE);
    let theirs: any;
    registerAppResource({ registerResource: (_n: string, _u: string, config: any) => (theirs = config) } as never, 'Board', 'ui://board/view.html', {}, (() => ({ contents: [] })) as never);
    const listed = (await result(mcp, req('resources/list'))).resources;
    expect(listed).toEqual([{ uri: 'ui://board/view.html', name: 'view.html', title: 'Board', description: 'A board', mimeType: theirs.mimeType, _meta: { ui } }]);
    const read = await result(mcp, req('resources/read', { uri: 'ui://board/view.html' }));
    expect(read).toEqual({ contents: [{ uri: 'ui://board/view.html', mimeType: RESOURCE_MIME_TYPE, text: PAGE, _meta: { ui } }] });
    expect(McpUiResourceMetaSchema.parse(read.contents[0]._meta.ui)).toEqual(ui);
  });

  it('without ui settings there is no _meta; the page may be made per read, from ctx, synchronously or not', async () => {
    const mcp = new MiniMCP<{ user: string }>(base);
    addAppResource(mcp, 'ui://a/sync', {}, (_uri, ctx) => `<p>${ctx.scope.user}</p>`);
    addAppResource(mcp, 'ui://a/async', {}, async (uri) => `<p>${uri}</p>`);
    expect((await result(mcp, req('resources/list'))).resources[0]).toEqual({ uri: 'ui://a/sync', name: 'sync', mimeType: APP_MIME_TYPE });
    expect((await result(mcp, req('resources/read', { uri: 'ui://a/sync' }), { scope: { user: 'ann' } })).contents)
      .toEqual([{ uri: 'ui://a/sync', mimeType: APP_MIME_TYPE, text: '<p>ann</p>' }]);
    expect((await result(mcp, req('resources/read', { uri: 'ui://a/async' }))).contents[0].text).toBe('<p>ui://a/async</p>');
  });

  it('a page function that returns no string is an internal error, logged, never a crash', async () => {
    const errors: unknown[] = [];
    const mcp = new MiniMCP({ ...base, onError: (e) => errors.push(e) });
    addAppResource(mcp, 'ui://a/bad', {}, () => 42 as never);
    expect(((await mcp.dispatch(req('resources/read', { uri: 'ui://a/bad' }))).reply as any).error).toEqual({ code: -32603, message: 'Internal error' });
    expect((errors[0] as Error).message).toBe('App ui://a/bad: the page must be a string of HTML');
  });

  it('refuses bad settings at registration', () => {
    const mcp = new MiniMCP(base);
    expect(() => addAppResource(mcp, 'file:///x.html', {}, PAGE)).toThrow('An app resource URI must be a ui:// URI');
    expect(() => addAppResource(mcp, 'ui://x', { csp: { scriptDomains: ['a'] } as never }, PAGE)).toThrow('csp.scriptDomains is not one of');
    expect(() => addAppResource(mcp, 'ui://x', { csp: { connectDomains: 'https://a' as never } }, PAGE)).toThrow('csp.connectDomains');
    expect(() => addAppResource(mcp, 'ui://x', { permissions: { usb: {} } as never }, PAGE)).toThrow('unknown permission usb');
    expect(() => addAppResource(mcp, 'ui://x', { domain: 7 as never }, PAGE)).toThrow('domain must be a non-empty string');
    expect(() => addAppResource(mcp, 'ui://x', { prefersBorder: 'yes' as never }, PAGE)).toThrow('prefersBorder must be a boolean');
    expect(() => addAppResource(mcp, 'ui://x', {}, 5 as never)).toThrow('html must be a string or a function');
    expect(mcp.resources.list()).toEqual([]);
  });
});

describe('addApp', () => {
  it('registers the page and the tool in one call, and removes both', async () => {
    const mcp = new MiniMCP(base);
    const remove = addApp(mcp, { uri: 'ui://clock/face.html', html: PAGE, domain: 'clock.example.net' }, 'clock', { description: 'Time', visibility: ['model'] }, () => 'noon');
    expect((await result(mcp, req('tools/list'))).tools[0]._meta.ui).toEqual({ resourceUri: 'ui://clock/face.html', visibility: ['model'] });
    expect((await result(mcp, req('resources/list'))).resources[0]._meta).toEqual({ ui: { domain: 'clock.example.net' } });
    expect(remove()).toBe(true);
    expect([mcp.tools.list(), mcp.resources.list()]).toEqual([[], []]);
  });

  it('all or nothing: a bad tool leaves no page behind', () => {
    const mcp = new MiniMCP(base);
    expect(() => addApp(mcp, { uri: 'ui://x/y', html: PAGE }, 'bad name!', {}, () => 'x')).toThrow('Invalid tool name');
    expect(mcp.resources.list()).toEqual([]);
  });
});

describe('the client’s io.modelcontextprotocol/ui capability from ctx', () => {
  const hostCaps = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };
  function probe() {
    const mcp = new MiniMCP(base);
    const seen: unknown[] = [];
    mcp.tool('probe', {}, (_a, ctx) => {
      seen.push([appsCapability(ctx), supportsApps(ctx), getUiCapability(ctx.client.capabilities as never)]);
      return 'ok';
    });
    return { mcp, seen };
  }

  it('2025: from initialize (capabilities.extensions), for every later request of the connection', async () => {
    for (const [caps, expected] of [
      [hostCaps, [{ mimeTypes: [RESOURCE_MIME_TYPE] }, true]],
      [{ extensions: { [EXTENSION_ID]: { mimeTypes: ['text/html'] } } }, [{ mimeTypes: ['text/html'] }, false]],
      [{}, [undefined, false]],
    ] as const) {
      const { mcp, seen } = probe();
      const connection: Connection = {};
      await result(mcp, req('initialize', { protocolVersion: '2025-11-25', capabilities: caps, clientInfo: { name: 'h', version: '1' } }), { connection });
      await result(mcp, req('tools/call', { name: 'probe' }, 2), { connection });
      const [mine, supported, theirs] = seen[0] as [unknown, boolean, unknown];
      expect([mine, supported]).toEqual(expected);
      expect(mine).toEqual(theirs); // the package's own reader agrees
    }
  });

  it('2026: from each request’s _meta client capabilities', async () => {
    const { mcp, seen } = probe();
    await result(mcp, modern('tools/call', { name: 'probe' }, hostCaps));
    await result(mcp, modern('tools/call', { name: 'probe' }, {}));
    await result(mcp, modern('tools/call', { name: 'probe' }, { extensions: { [EXTENSION_ID]: ['not', 'an', 'object'] } }));
    expect(seen).toEqual([
      [{ mimeTypes: [RESOURCE_MIME_TYPE] }, true, { mimeTypes: [RESOURCE_MIME_TYPE] }],
      [undefined, false, undefined],
      [undefined, false, ['not', 'an', 'object']], // the package passes anything through; ctx only takes settings objects
    ]);
  });
});
