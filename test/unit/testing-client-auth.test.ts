/**
 * Issue 32, item 3: `createTestClient(mcp, { auth: { subject, scopes, claims? } })` holds a token, in
 * both eras. `ctx.auth` is that token (as minimcp/auth makes it), per-operation scopes apply through the
 * same check the HTTP path uses (a missing one is the very error HTTP sends with its 403), lists leave
 * out what the token cannot use, and two subjects are two principals.
 */
import { describe, expect, it } from 'vitest';
import { oauthResourceServer } from '../../src/auth/index.js';
import { InsufficientScopeError, McpError, MiniMCP } from '../../src/index.js';
import { createTestClient, type TestEra, type TestToken } from '../../src/testing/index.js';
import { createFetchHandler } from '../../src/transports/http/fetch-handler.js';

function server() {
  const mcp = new MiniMCP({ name: 'notes', version: '1.0.0', scopes: ['notes:read'], onError: () => {} });
  mcp.tool('whoami', {}, (_args, ctx) => JSON.stringify(ctx.auth ?? null));
  mcp.tool('delete_note', { scopes: ['notes:read', 'notes:write'] }, () => 'deleted');
  mcp.tool('later', { task: 'optional' }, async (_args, ctx) => `later for ${ctx.auth?.subject}`);
  mcp.prompt('draft', { scopes: ['notes:write'] }, () => 'Write a note');
  mcp.resource('notes://index', {}, () => 'index');
  mcp.resource('notes://admin', { scopes: ['notes:admin'] }, () => 'admin');
  return mcp;
}

const READER: TestToken = { subject: 'ada', scopes: ['notes:read'], claims: { team: 'blue', client_id: 'cli' } };
const WRITER: TestToken = { subject: 'ada', scopes: ['notes:read', 'notes:write'] };
const names = (items: { name?: unknown }[]) => items.map((item) => item.name);
const uris = (items: { uri?: unknown }[]) => items.map((item) => item.uri);

/** What the HTTP path answers the same token for the same call: the JSON-RPC error of its 403. */
async function overHttp(era: TestEra, token: TestToken, tool: string): Promise<{ status: number; error: unknown; challenge: string | null }> {
  const auth = oauthResourceServer({
    issuer: 'https://issuer.test/', resource: 'http://127.0.0.1/mcp', scopes: ['notes:read', 'notes:write'],
    verify: () => ({ sub: token.subject, scope: token.scopes.join(' '), exp: Math.floor(Date.now() / 1000) + 60, ...token.claims }),
  });
  const handle = createFetchHandler(server(), { auth });
  const modern = era === '2026-07-28';
  const _meta = { 'io.modelcontextprotocol/protocolVersion': era, 'io.modelcontextprotocol/clientCapabilities': {} };
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer t' };
  if (modern) Object.assign(headers, { 'mcp-protocol-version': era, 'mcp-method': 'tools/call', 'mcp-name': tool });
  const params = modern ? { name: tool, arguments: {}, _meta } : { name: tool, arguments: {} };
  const response = await handle(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) }));
  return { status: response.status, error: (await response.json()).error, challenge: response.headers.get('www-authenticate') };
}

describe.each<TestEra>(['2025-11-25', '2026-07-28'])('createTestClient with a token (%s)', (era) => {
  it('ctx.auth is the token, as minimcp/auth makes it', async () => {
    const client = createTestClient(server(), { era, auth: READER });
    const auth = JSON.parse(((await client.callTool('whoami')).content[0] as { text: string }).text);
    expect(auth).toEqual({
      principal: JSON.stringify(['https://issuer.test/', 'ada']), issuer: 'https://issuer.test/', subject: 'ada', clientId: 'cli',
      scopes: ['notes:read'], claims: { iss: 'https://issuer.test/', sub: 'ada', scope: 'notes:read', team: 'blue', client_id: 'cli' },
    });
  });

  it('lists leave out what the token cannot use', async () => {
    const reader = createTestClient(server(), { era, auth: READER });
    expect(names(await reader.listTools())).toEqual(['whoami', 'later']);
    expect(names(await reader.listPrompts())).toEqual([]);
    expect(uris(await reader.listResources())).toEqual(['notes://index']);
    const writer = createTestClient(server(), { era, auth: WRITER });
    expect(names(await writer.listTools())).toEqual(['whoami', 'delete_note', 'later']);
    expect(names(await writer.listPrompts())).toEqual(['draft']);
  });

  it("a missing scope is refused with the step-up error the HTTP path sends with its 403", async () => {
    const client = createTestClient(server(), { era, auth: READER });
    const refused = await client.callTool('delete_note').then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(InsufficientScopeError);
    expect(refused).toMatchObject({ code: -32600, httpStatus: 403, scopes: ['notes:read', 'notes:write'] });
    const http = await overHttp(era, READER, 'delete_note');
    expect(http.status).toBe(403);
    expect(http.challenge).toMatch(/^Bearer error="insufficient_scope"/);
    expect(http.error).toEqual({ code: (refused as McpError).code, message: (refused as McpError).message });
    await expect(client.getPrompt('draft')).rejects.toMatchObject({ scopes: ['notes:write'] });
    await expect(client.readResource('notes://admin')).rejects.toBeInstanceOf(InsufficientScopeError);
    const writer = createTestClient(server(), { era, auth: WRITER });
    expect((await writer.callTool('delete_note')).content).toEqual([{ type: 'text', text: 'deleted' }]);
  });

  it('without a token no scope applies and ctx.auth is undefined, as before', async () => {
    const client = createTestClient(server(), { era });
    expect((await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'null' }]);
    expect((await client.callTool('delete_note')).content).toEqual([{ type: 'text', text: 'deleted' }]);
  });

  it("two subjects are two principals: one cannot read the other's task", async () => {
    const mcp = server();
    const tasks = era === '2026-07-28' ? { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } : {};
    const ada = createTestClient(mcp, { era, auth: READER, ...tasks });
    const gus = createTestClient(mcp, { era, auth: { subject: 'gus', scopes: ['notes:read'] }, ...tasks });
    const created = await ada.request('tools/call', { name: 'later', arguments: {}, ...(era === '2025-11-25' && { task: { ttl: 60_000 } }) });
    const taskId = (era === '2025-11-25' ? (created.task as { taskId: string }).taskId : created.taskId) as string;
    expect(typeof taskId).toBe('string');
    await expect(gus.request('tasks/get', { taskId })).rejects.toMatchObject({ code: -32602 });
    expect(await ada.request('tasks/get', { taskId })).toMatchObject({ taskId });
  });
});

describe('createTestClient option auth is checked', () => {
  it.each([
    [{ subject: '', scopes: [] }, /auth.subject/],
    [{ subject: 'ada' }, /auth.scopes/],
    [{ subject: 'ada', scopes: ['a b'] }, /auth.scopes/],
    [{ subject: 'ada', scopes: [], claims: { iss: '' } }, /auth.claims.iss/],
  ])('%j', (auth, message) => {
    expect(() => createTestClient(server(), { auth: auth as TestToken })).toThrow(message);
  });
});
