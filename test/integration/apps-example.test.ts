/**
 * examples/apps over real HTTP, checked against the MCP Apps package's own helpers and schemas
 * (@modelcontextprotocol/ext-apps): tool and resource `_meta.ui`, the MIME type, app-only visibility,
 * the client's `io.modelcontextprotocol/ui` capability in both eras (SDK v1 initialize, client v2
 * per-request _meta), and the page itself driven by the package's host bridge (AppBridge), which
 * passes the page's own tools/call on to this server.
 */
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import {
  AppBridge, McpUiResourceMetaSchema, McpUiToolMetaSchema, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, getToolUiResourceUri,
  isToolVisibilityAppOnly,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { EXTENSION_ID } from '@modelcontextprotocol/ext-apps/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DICE_APP, createDiceMcp } from '../../examples/apps/server.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';

let server: RunningServer;
beforeAll(async () => {
  server = await serve(createDiceMcp(), { port: 0 });
});
afterAll(async () => {
  await server.close();
});

const HOST_CAPABILITIES = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

async function v1(apps: boolean): Promise<ClientV1> {
  const client = new ClientV1({ name: 'host-v1', version: '1.0.0' }, { capabilities: apps ? HOST_CAPABILITIES : {} });
  await client.connect(new TransportV1(new URL(server.url)));
  return client;
}
async function v2(apps: boolean): Promise<ClientV2> {
  const client = new ClientV2({ name: 'host-v2', version: '2.0.0' }, { capabilities: apps ? HOST_CAPABILITIES : {}, versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(server.url)));
  return client;
}

type AnyClient = ClientV1 | ClientV2;
type UiTool = Parameters<typeof getToolUiResourceUri>[0];

for (const [era, connect] of [['SDK v1, 2025-11-25', v1], ['client v2, 2026-07-28', v2]] as const) {
  describe(`MCP Apps wire, ${era}`, () => {
    let host: AnyClient;
    let plain: AnyClient;
    beforeAll(async () => {
      [host, plain] = await Promise.all([connect(true), connect(false)]);
    });
    afterAll(async () => {
      await Promise.all([host.close(), plain.close()]);
    });

    it('tools name their app as the package reads it: _meta.ui.resourceUri, the legacy key, visibility', async () => {
      if (host instanceof ClientV2) expect(host.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      else expect((host.transport as TransportV1).protocolVersion).toBe('2025-11-25');
      // The package reads tools in its own SDK's types; the wire object is the same either way.
      const tools = (await host.listTools()).tools as UiTool[];
      expect(tools.map((t) => t.name)).toEqual(['roll_dice', 'roll_one']);
      const [dice, one] = tools as [UiTool, UiTool];
      expect(getToolUiResourceUri(dice)).toBe(DICE_APP);
      expect(getToolUiResourceUri(one)).toBe(DICE_APP);
      expect(dice._meta?.[RESOURCE_URI_META_KEY]).toBe(DICE_APP);
      expect(McpUiToolMetaSchema.parse(dice._meta?.ui)).toEqual({ resourceUri: DICE_APP });
      expect(McpUiToolMetaSchema.parse(one._meta?.ui)).toEqual({ resourceUri: DICE_APP, visibility: ['app'] });
      expect([isToolVisibilityAppOnly(dice), isToolVisibilityAppOnly(one)]).toEqual([false, true]);
    });

    it('the client’s io.modelcontextprotocol/ui capability reaches ctx: a client without it never sees the app-only tool', async () => {
      expect((await plain.listTools()).tools.map((t) => t.name)).toEqual(['roll_dice']);
      await expect(plain.callTool({ name: 'roll_one', arguments: { sides: 6 } })).rejects.toMatchObject({ code: -32602 });
      // It still gets the rolls as content (text fallback) and as structured content.
      const result = await plain.callTool({ name: 'roll_dice', arguments: { sides: 20, count: 3 } });
      const data = result.structuredContent as { sides: number; rolls: number[]; total: number };
      expect(data.rolls).toHaveLength(3);
      expect(data.rolls.every((r) => Number.isInteger(r) && r >= 1 && r <= 20)).toBe(true);
      expect(data.total).toBe(data.rolls.reduce((a, b) => a + b, 0));
      expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(data) }]);
    });

    it('the page is a ui:// resource served as text/html;profile=mcp-app with _meta.ui in the listing and the contents', async () => {
      const listed = (await host.listResources()).resources;
      expect(listed).toEqual([{ uri: DICE_APP, name: 'roller.html', title: 'Dice roller', mimeType: RESOURCE_MIME_TYPE, _meta: { ui: { prefersBorder: true } } }]);
      const [item] = (await host.readResource({ uri: DICE_APP })).contents as [{ uri: string; mimeType: string; text: string; _meta: unknown }];
      expect(item.uri).toBe(DICE_APP);
      expect(item.mimeType).toBe(RESOURCE_MIME_TYPE);
      expect(McpUiResourceMetaSchema.parse((item._meta as { ui: unknown }).ui)).toEqual({ prefersBorder: true });
      expect(item.text).toBe(readFileSync(new URL('../../examples/apps/dice.html', import.meta.url), 'utf8'));
    });
  });
}

/** The page's script in a minimal window: postMessage to and from its host, and the few elements it touches. */
function runPage(html: string, toHost: (message: unknown) => void) {
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (!script) throw new Error('the page has no inline script');
  const listeners: ((event: { source: unknown; data: unknown }) => void)[] = [];
  const elements = new Map<string, { textContent: string; disabled: boolean; clicks: (() => void)[]; addEventListener(type: string, fn: () => void): void }>();
  const element = (id: string) => {
    if (!elements.has(id)) elements.set(id, { textContent: '', disabled: true, clicks: [], addEventListener(_type, fn) { this.clicks.push(fn); } });
    return elements.get(id)!;
  };
  const parent = { postMessage: (message: unknown) => setTimeout(() => toHost(structuredClone(message))) };
  const window = { parent, addEventListener: (type: string, fn: (typeof listeners)[0]) => void (type === 'message' && listeners.push(fn)) };
  runInNewContext(script, { window, document: { getElementById: element } });
  return {
    element,
    post: (message: unknown) => setTimeout(() => { for (const fn of listeners) fn({ source: parent, data: structuredClone(message) }); }),
  };
}

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('the dice page under the official host bridge', () => {
  it('initializes, shows the tool result the host passes it, and calls the app-only tool through the host', async () => {
    const client = await v2(true);
    try {
      const html = ((await client.readResource({ uri: DICE_APP })).contents[0] as { text: string }).text;
      const bridge = new AppBridge(client, { name: 'test-host', version: '1.0.0' }, { serverTools: {} });
      const initialized = new Promise<void>((resolve) => {
        bridge.oninitialized = () => resolve();
      });
      let page: ReturnType<typeof runPage> | undefined;
      const transport = {
        onmessage: undefined as ((message: any) => void) | undefined,
        onclose: undefined as (() => void) | undefined,
        onerror: undefined as ((error: Error) => void) | undefined,
        start: async () => {},
        send: async (message: unknown) => void page!.post(message),
        close: async () => transport.onclose?.(),
      };
      await bridge.connect(transport);
      page = runPage(html, (message) => transport.onmessage?.(message));
      await initialized;

      const args = { sides: 6, count: 3 };
      const result = await client.callTool({ name: 'roll_dice', arguments: args });
      const first = (result.structuredContent as { rolls: number[] }).rolls;
      await bridge.sendToolInput({ arguments: args });
      await bridge.sendToolResult(result as never);
      const total = page.element('total');
      await until(() => total.textContent.startsWith('3d6'), 'the page to show the result');
      expect(total.textContent).toBe(`3d6: ${first.join(' + ')} = ${first.reduce((a, b) => a + b, 0)}`);
      expect(page.element('dice').textContent.split(' ')).toHaveLength(3);

      // The button: tools/call from the page -> AppBridge -> this server's app-only tool.
      const button = page.element('reroll');
      expect(button.disabled).toBe(false);
      button.clicks[0]!();
      await until(() => total.textContent.startsWith('4d6'), 'the page to show the extra die');
      const rolls = total.textContent.slice('4d6: '.length).split(' = ')[0]!.split(' + ').map(Number);
      expect(rolls.slice(0, 3)).toEqual(first);
      expect(rolls[3]).toBeGreaterThanOrEqual(1);
      expect(rolls[3]).toBeLessThanOrEqual(6);
      await bridge.close();
    } finally {
      await client.close();
    }
  });
});
