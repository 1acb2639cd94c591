/**
 * Issue 36, mount: a child MiniMCP's tools, prompts, resources and templates under a namespace
 * (`<name>_<tool>`, `<name>+<uri>`, reversible), with the child's visibility and scopes applied and
 * its list changes and resource updates propagated.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';

const handle = (mcp: MiniMCP<{ role?: string }>, method: string, params: object = {}, scope?: { role?: string }) =>
  mcp.handle({ jsonrpc: '2.0', id: 1, method, params }, { scope }) as Promise<{ result?: Record<string, unknown>; error?: { code: number } }>;

function child(): MiniMCP<{ role?: string }> {
  const mcp = new MiniMCP<{ role?: string }>({ name: 'child', version: '1.0.0' });
  mcp.tool('add', { input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, ({ a, b }) => String(Number(a) + Number(b)));
  mcp.tool('admin', { visible: (caller) => caller.scope?.role === 'admin' }, () => 'secret');
  mcp.prompt('hello', { arguments: [{ name: 'who', required: true }] }, ({ who }) => `Hello ${who}`);
  mcp.resource('file:///readme', { mimeType: 'text/plain' }, () => 'read me');
  mcp.resourceTemplate('file:///pages/{id}', { mimeType: 'text/plain' }, (_uri, { id }) => `page ${id}`);
  return mcp;
}

describe('mount', () => {
  it('serves the child under its namespace: tools, prompts, resources and templates', async () => {
    const parent = new MiniMCP<{ role?: string }>({ name: 'parent', version: '1.0.0' });
    parent.mount('kid', child());
    expect(((await handle(parent, 'tools/list')).result!.tools as { name: string }[]).map((t) => t.name)).toEqual(['kid_add']);
    expect((await handle(parent, 'tools/call', { name: 'kid_add', arguments: { a: 2, b: 3 } })).result).toEqual({ content: [{ type: 'text', text: '5' }] });
    expect(JSON.stringify((await handle(parent, 'prompts/get', { name: 'kid_hello', arguments: { who: 'Ada' } })).result)).toContain('Hello Ada');
    expect(((await handle(parent, 'resources/list')).result!.resources as { uri: string }[]).map((r) => r.uri)).toEqual(['kid+file:///readme']);
    expect((await handle(parent, 'resources/read', { uri: 'kid+file:///readme' })).result).toEqual({ contents: [{ uri: 'kid+file:///readme', mimeType: 'text/plain', text: 'read me' }] });
    expect(((await handle(parent, 'resources/templates/list')).result!.resourceTemplates as { uriTemplate: string }[]).map((t) => t.uriTemplate)).toEqual(['kid+file:///pages/{id}']);
    expect(JSON.stringify((await handle(parent, 'resources/read', { uri: 'kid+file:///pages/7' })).result)).toContain('page 7');
  });

  it("applies the child's visibility: a hidden tool is not listed, nor callable, for a caller the child hides it from", async () => {
    const parent = new MiniMCP<{ role?: string }>({ name: 'parent', version: '1.0.0' });
    parent.mount('kid', child());
    const names = async (scope?: { role?: string }) => ((await handle(parent, 'tools/list', {}, scope)).result!.tools as { name: string }[]).map((t) => t.name);
    expect(await names({ role: 'admin' })).toEqual(['kid_add', 'kid_admin']);
    expect(await names({ role: 'user' })).toEqual(['kid_add']);
    expect((await handle(parent, 'tools/call', { name: 'kid_admin', arguments: {} }, { role: 'user' })).error?.code).toBe(-32602);
  });

  it("propagates the child's list changes and resource updates, and close() removes it all", async () => {
    const kid = child();
    const parent = new MiniMCP<{ role?: string }>({ name: 'parent', version: '1.0.0' });
    const events: unknown[] = [];
    parent.bus.subscribe((event) => void events.push(event));
    const mounted = parent.mount('kid', kid);
    events.length = 0;
    kid.tool('late', {}, () => 'late');
    expect(events).toContainEqual({ type: 'tools/list_changed' });
    expect(((await handle(parent, 'tools/list')).result!.tools as { name: string }[]).map((t) => t.name)).toContain('kid_late');
    kid.tools.remove('late');
    expect(((await handle(parent, 'tools/list')).result!.tools as { name: string }[]).map((t) => t.name)).not.toContain('kid_late');
    kid.notifyResourceUpdated('file:///readme');
    expect(events).toContainEqual({ type: 'resources/updated', uri: 'kid+file:///readme' });
    mounted.close();
    expect(parent.tools.list()).toEqual([]);
    expect(parent.resources.list()).toEqual([]);
  });

  it("serves the child's skills under skill://<name>/…, with the child's visibility, and close() removes them", async () => {
    const kid = new MiniMCP<{ role?: string }>({ name: 'child', version: '1.0.0' });
    const parent = new MiniMCP<{ role?: string }>({ name: 'parent', version: '1.0.0' });
    const mounted = parent.mount('kid', kid); // the child has no skills yet: they are followed once it does
    await kid.skill({ path: 'greet', files: { 'SKILL.md': '---\nname: greet\ndescription: Says hello\n---\nSay hi.', 'templates/hi.txt': 'hi' } });
    await kid.skill({ path: 'vault', visible: (caller) => caller.scope?.role === 'admin', files: { 'SKILL.md': '---\nname: vault\ndescription: Admin only\n---\nx' } });
    const listed = async (scope?: { role?: string }) => ((await handle(parent, 'skills/list', {}, scope)).result!.skills as { uri: string; resources: { uri: string }[] }[]);
    const user = await listed({ role: 'user' });
    expect(user.map((s) => s.uri)).toEqual(['skill://kid/greet/SKILL.md']);
    expect(user[0]!.resources.map((r) => r.uri)).toEqual(['skill://kid/greet/SKILL.md', 'skill://kid/greet/templates/hi.txt']);
    expect((await listed({ role: 'admin' })).map((s) => s.uri)).toEqual(['skill://kid/greet/SKILL.md', 'skill://kid/vault/SKILL.md']);
    expect((await handle(parent, 'skills/get', { uri: 'skill://kid/vault/SKILL.md' }, { role: 'user' })).error?.code).toBe(-32602);
    expect(((await handle(parent, 'skills/get', { uri: 'skill://kid/greet/SKILL.md' })).result!.skill as { uri: string }).uri).toBe('skill://kid/greet/SKILL.md');
    expect((await handle(parent, 'resources/read', { uri: 'skill://kid/greet/templates/hi.txt' })).result).toEqual({
      contents: [{ uri: 'skill://kid/greet/templates/hi.txt', mimeType: 'text/plain', text: 'hi' }],
    });
    const directory = (await handle(parent, 'resources/directory/read', { uri: 'skill://kid/greet' })).result!.resources as { uri: string }[];
    expect(directory.map((r) => r.uri)).toEqual(['skill://kid/greet/SKILL.md', 'skill://kid/greet/templates']);
    expect((await handle(parent, 'resources/read', { uri: 'skill://greet/SKILL.md' })).error?.code).toBe(-32602); // only under the namespace
    mounted.close();
    expect((await listed()).length).toBe(0);
    expect((await handle(parent, 'skills/get', { uri: 'skill://kid/greet/SKILL.md' })).error?.code).toBe(-32602);
  });
});
