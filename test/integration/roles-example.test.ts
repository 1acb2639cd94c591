/**
 * examples/roles over real HTTP with two principals (two bearer tokens), through the official clients:
 * SDK v1 (2025-11-25, sessions) and client v2 (2026-07-28, stateless). Each sees only its own tools,
 * prompts and resources; a hidden one answers as an unknown one; 2026 list hints are private.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolesServer } from '../support/roles-server.js';

const { mcp, url } = rolesServer();

const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

async function v1(token: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url()), { requestInit: auth(token) }));
  return client;
}

async function v2(token: string): Promise<ClientV2> {
  const client = new ClientV2({ name: 'client-v2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(url()), { requestInit: auth(token) }));
  return client;
}

type AnyClient = ClientV1 | ClientV2;
const views = async (client: AnyClient) => ({
  tools: (await client.listTools()).tools.map((t) => t.name),
  prompts: (await client.listPrompts()).prompts.map((p) => p.name),
  resources: (await client.listResources()).resources.map((r) => r.uri),
  templates: (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
});

for (const [era, connect] of [['SDK v1 (2025-11-25)', v1], ['client v2 (2026-07-28)', v2]] as const) {
  describe(`roles example, ${era}`, () => {
    let ada: AnyClient;
    let gus: AnyClient;
    beforeAll(async () => {
      [ada, gus] = await Promise.all([connect('token-ada'), connect('token-gus')]);
    });
    afterAll(async () => {
      await Promise.all([ada.close(), gus.close()]);
    });

    it('each principal lists only what its roles allow', async () => {
      if (ada instanceof ClientV2) expect(ada.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      else expect((ada.transport as TransportV1).protocolVersion).toBe('2025-11-25');
      expect(await views(ada)).toEqual({
        tools: ['whoami', 'delete_user', 'refund'],
        prompts: ['incident_report'],
        resources: ['docs://handbook'],
        templates: ['audit://{day}'],
      });
      expect(await views(gus)).toEqual({ tools: ['whoami'], prompts: [], resources: ['docs://handbook'], templates: [] });
    });

    it('the admin calls, gets, completes and reads what it sees', async () => {
      expect((await ada.callTool({ name: 'delete_user', arguments: { id: 'gus' } })).content).toEqual([{ type: 'text', text: 'deleted gus' }]);
      expect((await ada.callTool({ name: 'refund', arguments: { order: 'A1' } })).content).toEqual([{ type: 'text', text: 'refunded A1' }]);
      expect((await ada.getPrompt({ name: 'incident_report', arguments: { severity: 'high' } })).messages[0]!.content)
        .toEqual({ type: 'text', text: 'Write a high severity incident report.' });
      expect((await ada.complete({ ref: { type: 'ref/prompt', name: 'incident_report' }, argument: { name: 'severity', value: 'c' } })).completion.values)
        .toEqual(['critical']);
      expect((await ada.readResource({ uri: 'audit://2026-11-24' })).contents[0]).toMatchObject({ text: 'audit log of 2026-11-24' });
    });

    it('to the guest a hidden primitive is an unknown one: -32602, nothing more', async () => {
      for (const name of ['delete_user', 'refund']) {
        const error = await gus.callTool({ name, arguments: { id: 'ada', order: 'A1' } }).then(() => undefined, (e: unknown) => e);
        expect(error).toMatchObject({ code: -32602, message: expect.stringContaining(`Unknown tool: '${name}'`) });
        expect((error as { data?: unknown }).data).toBeUndefined();
      }
      await expect(gus.getPrompt({ name: 'incident_report', arguments: { severity: 'high' } })).rejects.toMatchObject({ code: -32602 });
      await expect(gus.complete({ ref: { type: 'ref/prompt', name: 'incident_report' }, argument: { name: 'severity', value: '' } }))
        .rejects.toMatchObject({ code: -32602 });
      await expect(gus.readResource({ uri: 'audit://2026-11-24' })).rejects.toMatchObject({ code: -32602, data: { uri: 'audit://2026-11-24' } });
      expect((await gus.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: 'gus (no roles)' }]);
    });
  });
}

describe('roles example on the wire', () => {
  const post = (token: string, body: object) =>
    fetch(url(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list',
      },
      body: JSON.stringify(body),
    });
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

  it('2026 tools/list carries a private cache hint: the list depends on the caller', async () => {
    const response = await post('token-gus', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } });
    expect(response.status).toBe(200);
    const { result } = await response.json();
    expect(result).toMatchObject({ ttlMs: 60_000, cacheScope: 'private', resultType: 'complete' });
    expect(result.tools.map((t: { name: string }) => t.name)).toEqual(['whoami']);
  });

  it('2026 listen streams: a change to the admin’s list reaches the admin only; a change to everyone’s reaches both', async () => {
    const listen = async (token: string) => {
      const controller = new AbortController();
      const response = await fetch(url(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`,
          'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } }),
        signal: controller.signal,
      });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            text += decoder.decode(value, { stream: true });
          }
        } catch {
          // aborted at the end of the test
        }
      })();
      return { changes: () => text.split('notifications/tools/list_changed').length - 1, acknowledged: () => text.includes('acknowledged'), close: () => controller.abort() };
    };
    const waitFor = async (check: () => boolean) => {
      for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
      expect(check()).toBe(true);
    };
    const [ada, gus] = await Promise.all([listen('token-ada'), listen('token-gus')]);
    try {
      await waitFor(() => ada.acknowledged() && gus.acknowledged());
      const removeAdminTool = mcp.tools.add({ name: 'purge_cache', visible: ({ scope }) => scope.user.roles.includes('admin'), handler: () => 'purged' });
      const removePublicTool = mcp.tools.add({ name: 'ping_me', handler: () => 'pong' });
      await waitFor(() => ada.changes() === 2 && gus.changes() === 1);
      removeAdminTool();
      removePublicTool();
      await waitFor(() => ada.changes() === 4 && gus.changes() === 2);
    } finally {
      ada.close();
      gus.close();
    }
  });

  it('a request without a valid token is refused before any list is built', async () => {
    expect((await post('token-nobody', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } })).status).toBe(401);
  });
});
