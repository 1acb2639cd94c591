/**
 * Issue 26 item 7: mistakes at registration are refused with a message that says what to do, instead of
 * a silent replacement or a misreading: a second tool, prompt, resource or template under one name, a
 * bare shape of schemas, braces in a static resource URI.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MiniMCP } from '../../src/index.js';

const server = () => new MiniMCP({ name: 'reg', version: '1' });
const call = (mcp: MiniMCP, name: string) => mcp.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } });

describe('a name registered twice', () => {
  it('is refused for a tool, a prompt, a resource and a template, naming it and the way to replace it', () => {
    const mcp = server();
    mcp.tool('add', {}, () => 'first');
    mcp.prompt('explain', {}, () => 'first');
    mcp.resource('memo://a', {}, () => 'first');
    mcp.resourceTemplate('memo://items/{id}', {}, () => 'first');
    expect(() => mcp.tool('add', {}, () => 'second')).toThrow('Tool "add" is already registered: pass { replace: true } to replace it, or remove it first');
    expect(() => mcp.prompt('explain', {}, () => 'second')).toThrow('Prompt "explain" is already registered');
    expect(() => mcp.resource('MEMO://a', {}, () => 'second')).toThrow('Resource "MEMO://a" is already registered'); // the same URI, canonically
    expect(() => mcp.resourceTemplate('memo://items/{id}', {}, () => 'second')).toThrow('Resource template "memo://items/{id}" is already registered');
    expect(() => mcp.tools.add({ name: 'add', handler: () => 'second' })).toThrow('already registered');
  });

  it('replaces with replace: true, and the replacement is what answers and what is listed', async () => {
    const mcp = server();
    mcp.tool('add', { description: 'first' }, () => 'first');
    mcp.tool('add', { description: 'second', replace: true }, () => 'second');
    expect(await call(mcp, 'add')).toMatchObject({ result: { content: [{ type: 'text', text: 'second' }] } });
    const listed = (await mcp.handle({ jsonrpc: '2.0', id: 2, method: 'tools/list' })) as { result: { tools: object[] } };
    expect(listed.result.tools).toEqual([{ name: 'add', description: 'second', inputSchema: { type: 'object', properties: {} } }]);
    mcp.resource('memo://a', {}, () => 'first');
    mcp.resource('memo://a', { replace: true }, () => 'second');
    const listedResources = (await mcp.handle({ jsonrpc: '2.0', id: 3, method: 'resources/list' })) as { result: { resources: object[] } };
    expect(listedResources.result.resources).toEqual([{ uri: 'memo://a', name: 'a' }]);
  });

  it('may be registered again after it was removed', () => {
    const mcp = server();
    const remove = mcp.tools.add({ name: 'temp', handler: () => 'x' });
    remove();
    expect(() => mcp.tools.add({ name: 'temp', handler: () => 'y' })).not.toThrow();
  });
});

describe('a bare shape of schemas (the official SDK form)', () => {
  it('is refused at startup with the fix in the message, for tool input and output and prompt arguments', () => {
    const mcp = server();
    const hint = 'The schema is a bare shape of schemas ({ n }), not a schema: wrap it, e.g. z.object({ ... })';
    expect(() => mcp.tool('bare', { input: { n: z.number() } as never }, () => '')).toThrow(hint);
    expect(() => mcp.tool('bare-out', { output: { n: z.number() } as never }, () => ({ n: 1 }))).toThrow(hint);
    expect(() => mcp.prompt('bare', { arguments: { n: z.number() } as never }, () => '')).toThrow(hint);
  });
});

describe('braces in a static resource URI', () => {
  it('are refused, pointing to resourceTemplate()', () => {
    expect(() => server().resource('files://{path}', {}, () => '')).toThrow(
      'Resource URI files://{path} has braces: a URI with variables is a template, register it with resourceTemplate()',
    );
  });
});
