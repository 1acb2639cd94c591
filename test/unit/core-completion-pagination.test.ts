/** completion/complete and the opaque cursors of the four list methods. */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';

const base = { name: 'cp', version: '1.0.0', onError: () => {} };
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

describe('completion/complete', () => {
  const seen: unknown[] = [];
  const mcp = new MiniMCP(base);
  mcp.prompt('lang', {
    arguments: [{ name: 'language' }, { name: 'framework' }],
    complete: {
      language: (value) => ['python', 'perl', 'php', 'rust'].filter((l) => l.startsWith(value)),
      framework: (value, context) => {
        seen.push([value, context]);
        return context.arguments.language === 'python' ? ['django', 'flask'] : ['none'];
      },
    },
  }, () => 'x');
  mcp.prompt('nocomplete', { arguments: [{ name: 'a' }] }, () => 'x');
  mcp.resourceTemplate('repo://{owner}/{name}', {
    complete: {
      owner: async (value) => ({ values: ['octo', 'oct'].filter((o) => o.startsWith(value)), total: 10, hasMore: true }),
      name: () => Array.from({ length: 150 }, (_, i) => `n${i}`),
    },
  }, () => 'x');
  const complete = async (params: Record<string, unknown>) => mcp.dispatch(req('completion/complete', params));
  const completion = async (params: Record<string, unknown>) => ((await complete(params)).reply as any).result;

  it('completes a prompt argument', async () => {
    expect(await completion({ ref: { type: 'ref/prompt', name: 'lang' }, argument: { name: 'language', value: 'p' } })).toEqual({
      completion: { values: ['python', 'perl', 'php'], total: 3, hasMore: false },
    });
  });

  it('passes context.arguments to the completer', async () => {
    seen.length = 0;
    expect(await completion({
      ref: { type: 'ref/prompt', name: 'lang' }, argument: { name: 'framework', value: '' }, context: { arguments: { language: 'python' } },
    })).toEqual({ completion: { values: ['django', 'flask'], total: 2, hasMore: false } });
    expect(seen).toEqual([['', { arguments: { language: 'python' } }]]);
    await completion({ ref: { type: 'ref/prompt', name: 'lang' }, argument: { name: 'framework', value: 'x' } });
    expect(seen[1]).toEqual(['x', { arguments: {} }]);
  });

  it('completes a resource template variable and keeps total / hasMore from a CompletionResult', async () => {
    expect(await completion({ ref: { type: 'ref/resource', uri: 'repo://{owner}/{name}' }, argument: { name: 'owner', value: 'oct' } })).toEqual({
      completion: { values: ['octo', 'oct'], total: 10, hasMore: true },
    });
  });

  it('caps values at 100 with hasMore and the full total', async () => {
    const r = await completion({ ref: { type: 'ref/resource', uri: 'repo://{owner}/{name}' }, argument: { name: 'name', value: '' } });
    expect(r.completion.values).toHaveLength(100);
    expect(r.completion.values[0]).toBe('n0');
    expect(r.completion.values[99]).toBe('n99');
    expect(r.completion.total).toBe(150);
    expect(r.completion.hasMore).toBe(true);
  });

  it('an argument without a completer gets an empty completion', async () => {
    expect(await completion({ ref: { type: 'ref/prompt', name: 'nocomplete' }, argument: { name: 'a', value: 'x' } })).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
    expect(await completion({ ref: { type: 'ref/prompt', name: 'lang' }, argument: { name: 'other', value: 'x' } })).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
  });

  it('unknown prompt or template is -32602', async () => {
    expect((await complete({ ref: { type: 'ref/prompt', name: 'zzz' }, argument: { name: 'a', value: '' } })).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: "Unknown prompt: 'zzz'" },
    });
    expect((await complete({ ref: { type: 'ref/resource', uri: 'zzz://{x}' }, argument: { name: 'x', value: '' } })).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown resource template: zzz://{x}' },
    });
  });

  it('malformed ref or argument is -32602', async () => {
    expect((await complete({ ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'a', value: '' } })).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'params.ref must be a ref/prompt with a name or a ref/resource with a uri' },
    });
    for (const argument of [undefined, { name: 'a' }, { value: 'x' }, { name: 1, value: 'x' }]) {
      expect((await complete({ ref: { type: 'ref/prompt', name: 'lang' }, argument })).reply).toEqual({
        jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'params.argument needs a string name and value' },
      });
    }
  });

  it('is -32601 when no completer is registered anywhere', async () => {
    const plain = new MiniMCP(base);
    plain.prompt('p', { arguments: [{ name: 'a' }] }, () => 'x');
    const outcome = await plain.dispatch(req('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }));
    expect(outcome).toEqual({
      reply: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: completion/complete' } }, status: 200,
    });
  });

  it('a throwing completer is -32603', async () => {
    const m = new MiniMCP(base);
    m.prompt('p', { arguments: [{ name: 'a' }], complete: { a: () => { throw new Error('/secret'); } } }, () => 'x');
    expect((await m.dispatch(req('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }))).reply)
      .toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
  });
});

describe('pagination', () => {
  const make = () => {
    const mcp = new MiniMCP({ ...base, pageSize: 2 });
    for (const n of ['t1', 't2', 't3', 't4', 't5']) mcp.tool(n, {}, () => n);
    for (const n of ['p1', 'p2', 'p3']) mcp.prompt(n, {}, () => n);
    for (const n of ['r1', 'r2', 'r3']) mcp.resource(`test://${n}`, {}, () => n);
    for (const n of ['a', 'b', 'c']) mcp.resourceTemplate(`${n}://{x}`, {}, () => n);
    return mcp;
  };
  const list = async (mcp: MiniMCP, method: string, cursor?: unknown) =>
    (await mcp.dispatch(req(method, cursor === undefined ? {} : { cursor })));

  it('walks 5 tools in 3 pages of 2, 2, 1; the last page has no nextCursor', async () => {
    const mcp = make();
    const p1 = ((await list(mcp, 'tools/list')).reply as any).result;
    expect(p1.tools.map((t: any) => t.name)).toEqual(['t1', 't2']);
    expect(typeof p1.nextCursor).toBe('string');
    const p2 = ((await list(mcp, 'tools/list', p1.nextCursor)).reply as any).result;
    expect(p2.tools.map((t: any) => t.name)).toEqual(['t3', 't4']);
    expect(typeof p2.nextCursor).toBe('string');
    expect(p2.nextCursor).not.toBe(p1.nextCursor);
    const p3 = ((await list(mcp, 'tools/list', p2.nextCursor)).reply as any).result;
    expect(p3).toEqual({ tools: [{ name: 't5', inputSchema: { type: 'object', properties: {} } }] });
    expect('nextCursor' in p3).toBe(false);
  });

  it('paginates prompts, resources and templates the same way', async () => {
    const mcp = make();
    for (const [method, key] of [['prompts/list', 'prompts'], ['resources/list', 'resources'], ['resources/templates/list', 'resourceTemplates']]) {
      const first = ((await list(mcp, method!)).reply as any).result;
      expect(first[key!]).toHaveLength(2);
      const second = ((await list(mcp, method!, first.nextCursor)).reply as any).result;
      expect(second[key!]).toHaveLength(1);
      expect(second.nextCursor).toBeUndefined();
    }
  });

  it('exactly one full page has no nextCursor', async () => {
    const mcp = new MiniMCP({ ...base, pageSize: 2 });
    mcp.tool('a', {}, () => 1).tool('b', {}, () => 1);
    expect(((await list(mcp, 'tools/list')).reply as any).result.nextCursor).toBeUndefined();
  });

  const forged = (text: string) => btoa(text).replace(/=+$/, '');
  const bad: Array<[string, unknown]> = [
    ['garbage', '!!!not-base64!!!'],
    ['empty string', ''],
    ['a number', 2],
    ['null', null],
    ['an object', { offset: 2 }],
    ['base64 without prefix', forged('2')],
    ['forged negative offset', forged('mm1:-1')],
    ['forged non-numeric offset', forged('mm1:abc')],
    ['forged leading zero', forged('mm1:02')],
    ['forged past the end', forged('mm1:6')],
    ['forged huge offset', forged('mm1:999999999')],
    ['a too long cursor', 'A'.repeat(64)],
  ];
  for (const [label, cursor] of bad) {
    it(`rejects ${label} with -32602 Invalid cursor`, async () => {
      const outcome = await list(make(), 'tools/list', cursor);
      expect(outcome).toEqual({ reply: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid cursor' } }, status: 200 });
    });
  }

  it('rejects bad cursors on every list method', async () => {
    const mcp = make();
    for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) {
      expect(((await list(mcp, method, 'garbage!')).reply as any).error).toEqual({ code: -32602, message: 'Invalid cursor' });
    }
  });
});
