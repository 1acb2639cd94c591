/**
 * Scopes per operation in the core, through dispatch() with a verified token in the facts (what the
 * HTTP `auth` option passes): the step-up outcome (403, the scopes named), lists, prompts, resource
 * templates and completions, the server-wide default, and requests without a token (stdio) untouched.
 */
import { describe, expect, it } from 'vitest';
import type { AuthInfo } from '../../src/index.js';
import { MiniMCP } from '../../src/index.js';

const token = (scopes: string[]): AuthInfo => ({
  principal: '["https://issuer.example","alice"]', issuer: 'https://issuer.example', subject: 'alice',
  clientId: 'app', scopes, expiresAt: Date.now() + 60_000, claims: {},
});

function server(): MiniMCP {
  const mcp = new MiniMCP({ name: 'scopes', version: '1', scopes: ['read'] });
  mcp.tool('look', {}, () => 'looked');
  mcp.tool('write', { scopes: ['read', 'write'] }, () => 'written');
  mcp.tool('open', { scopes: [] }, () => 'open to any token');
  mcp.prompt('secret', { scopes: ['admin'], arguments: [{ name: 'x' }], complete: { x: () => ['a'] } }, () => 'hi');
  mcp.resourceTemplate('files://{name}', { scopes: ['files'] }, (_uri, { name }) => `file ${name}`);
  return mcp;
}

const request = (method: string, params: object) => ({ jsonrpc: '2.0', id: 1, method, params });
const call = (name: string) => request('tools/call', { name, arguments: {} });

describe('scopes per operation', () => {
  it('a call without the scopes is a 403 outcome naming them; with them it runs', async () => {
    const mcp = server();
    const refused = await mcp.dispatch(call('write'), { auth: token(['read']) });
    expect(refused.status).toBe(403);
    expect(refused.scopes).toEqual(['read', 'write']);
    expect(refused.reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Forbidden: this operation needs the scope read write' } });
    expect((await mcp.dispatch(call('write'), { auth: token(['read', 'write']) })).reply).toMatchObject({ result: { content: [{ text: 'written' }] } });
  });

  it('the server-wide default applies to primitives that name none; an empty list opts out', async () => {
    const mcp = server();
    expect((await mcp.dispatch(call('look'), { auth: token([]) })).scopes).toEqual(['read']);
    expect((await mcp.dispatch(call('open'), { auth: token([]) })).reply).toMatchObject({ result: { content: [{ text: 'open to any token' }] } });
  });

  it('lists leave out what the token cannot use', async () => {
    const mcp = server();
    const names = async (scopes: string[]) =>
      ((await mcp.handle(request('tools/list', {}), { auth: token(scopes) })) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(await names([])).toEqual(['open']);
    expect(await names(['read'])).toEqual(['look', 'open']);
    expect(await names(['read', 'write'])).toEqual(['look', 'write', 'open']);
  });

  it('prompts, resource templates and completions need their scopes too', async () => {
    const mcp = server();
    const reader = token(['read']);
    expect((await mcp.dispatch(request('prompts/get', { name: 'secret', arguments: {} }), { auth: reader })).scopes).toEqual(['admin']);
    expect((await mcp.dispatch(request('resources/read', { uri: 'files://a' }), { auth: reader })).scopes).toEqual(['files']);
    expect((await mcp.dispatch(request('completion/complete', { ref: { type: 'ref/prompt', name: 'secret' }, argument: { name: 'x', value: '' } }), { auth: reader })).status).toBe(403);
    expect((await mcp.dispatch(request('resources/read', { uri: 'files://a' }), { auth: token(['files']) })).reply).toMatchObject({ result: { contents: [{ text: 'file a' }] } });
  });

  it('a request without a token (stdio, handle() in code) is not subject to scopes', async () => {
    const mcp = server();
    expect((await mcp.dispatch(call('write'))).reply).toMatchObject({ result: { content: [{ text: 'written' }] } });
    expect(((await mcp.handle(request('tools/list', {}))) as { result: { tools: unknown[] } }).result.tools).toHaveLength(3);
  });

  it('ctx.auth carries the token facts; the principal is the token one', async () => {
    const mcp = new MiniMCP({ name: 'ctx', version: '1' });
    mcp.tool('me', {}, (_args, ctx) => `${ctx.auth?.subject} ${ctx.auth?.scopes.join(',')} ${mcp.principalOf(undefined, ctx.auth)}`);
    expect((await mcp.dispatch(call('me'), { auth: token(['read']) })).reply).toMatchObject({
      result: { content: [{ text: 'alice read ["https://issuer.example","alice"]' }] },
    });
  });

  it('refuses malformed scope lists at registration', () => {
    const mcp = new MiniMCP({ name: 'bad', version: '1' });
    expect(() => mcp.tool('t', { scopes: ['has space'] }, () => '')).toThrow(/scopes must be an array of OAuth scope names/);
    expect(() => new MiniMCP({ name: 'bad', version: '1', scopes: 'read' as never })).toThrow(/scopes must be an array/);
  });
});
