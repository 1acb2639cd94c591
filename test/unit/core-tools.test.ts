/** tools/list and tools/call: argument handling, results, errors as results, output schemas, content helpers. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Validator } from '@cfworker/json-schema';
import { MiniMCP, McpError, content } from '../../src/index.js';

const base = { name: 'tools', version: '1.0.0', onError: () => {} };
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const call = async (mcp: MiniMCP, params: Record<string, unknown>) => (await mcp.dispatch(req('tools/call', params)));
const callResult = async (mcp: MiniMCP, name: string, args?: unknown) => {
  const outcome = await call(mcp, args === undefined ? { name } : { name, arguments: args });
  expect(outcome.status).toBe(200);
  return (outcome.reply as any).result;
};

describe('tools/list', () => {
  it('publishes name, title, description, inputSchema, outputSchema, annotations, icons and _meta unchanged', async () => {
    const mcp = new MiniMCP(base);
    const annotations = { title: 'Adder', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    const icons = [{ src: 'https://example.com/a.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' as const }];
    const _meta = { 'example.com/x': { nested: [1, 2] } };
    mcp.tool('add', {
      title: 'Add', description: 'Adds', annotations, icons, _meta,
      input: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
      output: { type: 'object', properties: { sum: { type: 'number' } } },
    }, ({ a }) => ({ sum: Number(a) }));
    mcp.tool('plain', {}, () => 'x');
    const result = (await mcp.handle(req('tools/list')) as any).result;
    expect(result).toEqual({
      tools: [
        {
          name: 'add', title: 'Add', description: 'Adds', annotations, icons, _meta,
          inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
          outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
        },
        { name: 'plain', inputSchema: { type: 'object', properties: {} } },
      ],
    });
    expect(Object.keys(result.tools[1])).toEqual(['name', 'inputSchema']);
  });

  it('lists tools in registration order and re-registration (replace: true) replaces in place', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('b', {}, () => 1).tool('a', {}, () => 2).tool('c', {}, () => 3);
    mcp.tool('a', { description: 'new', replace: true }, () => 4);
    const tools = ((await mcp.handle(req('tools/list'))) as any).result.tools;
    expect(tools.map((t: any) => t.name)).toEqual(['b', 'a', 'c']);
    expect(tools[1].description).toBe('new');
  });

  it('a removed tool is gone from the list and unknown to tools/call', async () => {
    const mcp = new MiniMCP(base);
    const remove = mcp.tools.add({ name: 'gone', handler: () => 'x' });
    mcp.tool('stay', {}, () => 'y');
    expect(remove()).toBe(true);
    expect(remove()).toBe(false);
    expect(((await mcp.handle(req('tools/list'))) as any).result.tools.map((t: any) => t.name)).toEqual(['stay']);
    expect((await call(mcp, { name: 'gone' })).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: "Unknown tool: 'gone'" },
    });
  });
});

describe('tools/call: protocol errors', () => {
  const mcp = new MiniMCP(base);
  mcp.tool('echo', {}, (args) => JSON.stringify(args));

  it('unknown tool is -32602 "Unknown tool: \'ad\'" in-band', async () => {
    const outcome = await call(mcp, { name: 'ad' });
    expect(outcome).toEqual({ reply: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: "Unknown tool: 'ad'" } }, status: 200 });
  });

  it('a missing or non-string name is -32602', async () => {
    for (const params of [{}, { name: 3 }, { name: null }]) {
      expect((await call(mcp, params)).reply).toEqual({
        jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'params.name must be a string' },
      });
    }
  });

  it('tools/call without params at all is -32602', async () => {
    expect(await mcp.handle(req('tools/call'))).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'params.name must be a string' },
    });
  });

  it('arguments that are not an object are -32602', async () => {
    for (const args of [[1], 'x', 5, true]) {
      expect((await call(mcp, { name: 'echo', arguments: args })).reply).toEqual({
        jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'params.arguments must be an object' },
      });
    }
  });

  it('missing (or null) arguments are treated as {}', async () => {
    expect(await callResult(mcp, 'echo')).toEqual({ content: [{ type: 'text', text: '{}' }] });
    const outcome = await call(mcp, { name: 'echo', arguments: null });
    expect((outcome.reply as any).result).toEqual({ content: [{ type: 'text', text: '{}' }] });
  });
});

describe('tools/call: execution errors are results', () => {
  it('a throwing tool (sync or async) reaches the server log (onError) with its request, like a prompt or resource; a deliberate McpError does not', async () => {
    const logged: Array<{ error: unknown; method: string | undefined; name: unknown }> = [];
    const mcp = new MiniMCP({
      ...base,
      onError: (error, request) => logged.push({ error, method: request?.method, name: request?.params?.name }),
    });
    const boom = new Error('db at 10.0.0.5 refused');
    mcp.tool('sync', {}, () => {
      throw boom;
    });
    mcp.tool('async', {}, async () => {
      throw boom;
    });
    mcp.tool('deliberate', {}, () => {
      throw new McpError(-32602, 'bad input');
    });
    mcp.prompt('prompt', {}, () => {
      throw boom;
    });
    expect((await callResult(mcp, 'sync', {})).isError).toBe(true);
    expect((await callResult(mcp, 'async', {})).isError).toBe(true);
    expect((await callResult(mcp, 'deliberate', {})).isError).toBe(true);
    await mcp.handle({ jsonrpc: '2.0', id: 9, method: 'prompts/get', params: { name: 'prompt' } });
    expect(logged).toEqual([
      { error: boom, method: 'tools/call', name: 'sync' },
      { error: boom, method: 'tools/call', name: 'async' },
      { error: boom, method: 'prompts/get', name: 'prompt' },
    ]);
  });

  it('invalid arguments (JSON Schema) give isError with a clear message, handler not run', async () => {
    const mcp = new MiniMCP(base);
    let ran = false;
    mcp.tool('add', { input: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } }, () => {
      ran = true;
      return 'x';
    });
    const r = await callResult(mcp, 'add', { a: 'one' });
    expect(r.isError).toBe(true);
    expect(r.content).toHaveLength(1);
    expect(r.content[0].type).toBe('text');
    expect(r.content[0].text).toMatch(/^Invalid arguments for tool 'add': /);
    expect(r.content[0].text).toContain('a');
    expect(ran).toBe(false);
    const missing = await callResult(mcp, 'add', {});
    expect(missing.isError).toBe(true);
    expect(missing.content[0].text).toMatch(/^Invalid arguments for tool 'add': .*a/);
  });

  it('invalid arguments (Zod) name the field in the message', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('greet', { input: z.object({ who: z.string() }) }, ({ who }) => `hi ${who}`);
    const r = await callResult(mcp, 'greet', { who: 5 });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/^Invalid arguments for tool 'greet': who: /);
    expect(await callResult(mcp, 'greet', { who: 'bo' })).toEqual({ content: [{ type: 'text', text: 'hi bo' }] });
  });

  it('a throwing handler gives isError with the generic text; the error goes to onError (a UserError speaks to the model)', async () => {
    const logged: unknown[] = [];
    const mcp = new MiniMCP({ ...base, onError: (error) => logged.push(error) });
    mcp.tool('boom', {}, () => {
      throw new Error('The API said no');
    });
    mcp.tool('reject', {}, async () => Promise.reject('plain string'));
    mcp.tool('weird', {}, () => {
      throw 42;
    });
    expect(await callResult(mcp, 'boom')).toEqual({ content: [{ type: 'text', text: 'The tool failed' }], isError: true });
    expect(await callResult(mcp, 'reject')).toEqual({ content: [{ type: 'text', text: 'The tool failed' }], isError: true });
    expect(await callResult(mcp, 'weird')).toEqual({ content: [{ type: 'text', text: 'The tool failed' }], isError: true });
    expect(logged.map((e) => (e instanceof Error ? e.message : e))).toEqual(['The API said no', 'plain string', 42]);
  });

  it('an McpError thrown by a tool is an isError result too', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('refuse', {}, () => {
      throw new McpError(1000, 'Quota exceeded');
    });
    expect(await callResult(mcp, 'refuse')).toEqual({ content: [{ type: 'text', text: 'Quota exceeded' }], isError: true });
  });
});

describe('tools/call: results', () => {
  const mcp = new MiniMCP(base);
  mcp.tool('str', {}, () => 'hello');
  mcp.tool('num', {}, () => 42);
  mcp.tool('obj', {}, () => ({ a: 1 }));
  mcp.tool('none', {}, () => undefined);
  mcp.tool('block', {}, () => content.text('t', { priority: 1 }));
  mcp.tool('blocks', {}, () => [content.text('a'), content.text('b')]);
  mcp.tool('full', {}, () => ({ content: [{ type: 'text', text: 'x' }], isError: true, _meta: { 'a.b/c': 1 } }));

  it('converts return values to content', async () => {
    expect(await callResult(mcp, 'str')).toEqual({ content: [{ type: 'text', text: 'hello' }] });
    expect(await callResult(mcp, 'num')).toEqual({ content: [{ type: 'text', text: '42' }] });
    expect(await callResult(mcp, 'obj')).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
    expect(await callResult(mcp, 'none')).toEqual({ content: [] });
    expect(await callResult(mcp, 'block')).toEqual({ content: [{ type: 'text', text: 't', annotations: { priority: 1 } }] });
    expect(await callResult(mcp, 'blocks')).toEqual({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] });
    expect(await callResult(mcp, 'full')).toEqual({ content: [{ type: 'text', text: 'x' }], isError: true, _meta: { 'a.b/c': 1 } });
  });

  it('never adds resultType to a 2025 result', async () => {
    expect(Object.keys(await callResult(mcp, 'str'))).toEqual(['content']);
  });

  it('content helpers build image, audio, resource links and embedded resources', async () => {
    const m = new MiniMCP(base);
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    m.tool('media', {}, () => [
      content.image(bytes, 'image/png'),
      content.image('QUJD', 'image/jpeg', { audience: ['user'] }),
      content.audio(bytes.subarray(1, 3), 'audio/wav'),
      content.resourceLink({ uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain', size: 3 }),
      content.resource({ uri: 'test://r', mimeType: 'text/plain', text: 'embedded' }, { priority: 0.5 }),
    ]);
    expect(await callResult(m, 'media')).toEqual({
      content: [
        { type: 'image', data: Buffer.from(bytes).toString('base64'), mimeType: 'image/png' },
        { type: 'image', data: 'QUJD', mimeType: 'image/jpeg', annotations: { audience: ['user'] } },
        { type: 'audio', data: Buffer.from([1, 2]).toString('base64'), mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain', size: 3 },
        { type: 'resource', resource: { uri: 'test://r', mimeType: 'text/plain', text: 'embedded' }, annotations: { priority: 0.5 } },
      ],
    });
  });
});

describe('tools/call: output schemas', () => {
  const mcp = new MiniMCP(base);
  mcp.tool('sum', {
    input: z.object({ a: z.number(), b: z.number() }),
    output: z.object({ sum: z.number() }),
  }, ({ a, b }) => ({ sum: a + b }));
  // @ts-expect-error deliberately breaks the output schema: the run-time check is under test
  mcp.tool('liar', { output: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } }, () => ({ sum: 'many' }));
  mcp.tool('full', { output: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, () => ({
    content: [{ type: 'text', text: 'custom' }], structuredContent: { n: 3 },
  }));
  mcp.tool('fullBad', { output: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, () => ({
    content: [{ type: 'text', text: 'custom' }], structuredContent: { n: 'x' },
  }));
  mcp.tool('errOut', { output: { type: 'object', required: ['n'] } }, () => ({ content: [{ type: 'text', text: 'failed' }], isError: true }));

  it('returns structuredContent plus its JSON as text', async () => {
    expect(await callResult(mcp, 'sum', { a: 2, b: 3 })).toEqual({
      content: [{ type: 'text', text: '{"sum":5}' }], structuredContent: { sum: 5 },
    });
  });

  it('publishes the output schema of a Zod output', async () => {
    const tools = ((await mcp.handle(req('tools/list'))) as any).result.tools;
    expect(tools[0].outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] });
  });

  it('output breaking the schema is an isError result naming the tool', async () => {
    const r = await callResult(mcp, 'liar');
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(r.content).toHaveLength(1);
    expect(r.content[0].text).toMatch(/^Tool 'liar' returned output that does not match its output schema: /);
  });

  it('a full CallToolResult is checked through its structuredContent', async () => {
    expect(await callResult(mcp, 'full')).toEqual({ content: [{ type: 'text', text: 'custom' }], structuredContent: { n: 3 } });
    const bad = await callResult(mcp, 'fullBad');
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/^Tool 'fullBad' returned output that does not match its output schema/);
  });

  it('an isError result is not checked against the output schema', async () => {
    expect(await callResult(mcp, 'errOut')).toEqual({ content: [{ type: 'text', text: 'failed' }], isError: true });
  });
});

describe('tools/call: structuredContent conforms to the published output schema', () => {
  const conforms = async (mcp: MiniMCP, name: string) => {
    const tool = (((await mcp.handle(req('tools/list'))) as any).result.tools as any[]).find((t) => t.name === name);
    const result = await callResult(mcp, name);
    if (result.isError) return { result, ok: true };
    const check = new Validator(tool.outputSchema, '2020-12', false).validate(result.structuredContent);
    return { result, ok: check.valid };
  };

  it('a Zod output the handler returns exactly is sent and conforms', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('exact', { output: z.object({ sum: z.number() }) }, () => ({ sum: 1 }));
    const { result, ok } = await conforms(mcp, 'exact');
    expect(ok).toBe(true);
    expect(result).toEqual({ content: [{ type: 'text', text: '{"sum":1}' }], structuredContent: { sum: 1 } });
  });

  // BUG: runTool validates the value against the Zod output schema but then publishes the raw value,
  // not the parsed one: extra keys (published schema says additionalProperties: false) and missing
  // defaulted keys (published schema says required) reach the client, breaking the server's own schema.
  it('extra keys a Zod output schema strips do not reach structuredContent (or the call is isError)', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('leaky', { output: z.object({ sum: z.number() }) }, () => ({ sum: 1, secret: 'internal' }) as { sum: number });
    const { result, ok } = await conforms(mcp, 'leaky');
    expect(ok).toBe(true);
    expect(JSON.stringify(result)).not.toContain('internal');
  });

  it('a Zod default fills structuredContent so it has every required key (or the call is isError)', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('defaulted', { output: z.object({ sum: z.number().default(3) }) }, () => ({}) as { sum: number });
    const { ok } = await conforms(mcp, 'defaulted');
    expect(ok).toBe(true);
  });
});

describe('tool registration', () => {
  it('validates tool names (SEP-986)', () => {
    const mcp = new MiniMCP(base);
    for (const name of ['a', 'A-b_c.d', 'x'.repeat(128), '0']) expect(() => mcp.tool(name, {}, () => 1)).not.toThrow();
    for (const name of ['', 'x'.repeat(129), 'has space', 'slash/x', 'émoji', 'a,b', 'tab\t']) {
      expect(() => mcp.tool(name, {}, () => 1)).toThrow(/^Invalid tool name/);
    }
  });

  it('refuses a non-object input schema and a missing handler', () => {
    const mcp = new MiniMCP(base);
    expect(() => mcp.tool('arr', { input: { type: 'array' } }, () => 1)).toThrow('Tool "arr": the input schema must describe an object');
    expect(() => mcp.tool('str', { input: z.string() as any }, () => 1)).toThrow(/must describe an object/);
    expect(() => mcp.tools.add({ name: 'nohandler' } as any)).toThrow('Tool "nohandler" needs a handler function');
  });

  it('mcp.tools.call goes through the same path and throws McpError-like errors for protocol errors', async () => {
    const mcp = new MiniMCP(base);
    mcp.tool('up', { input: z.object({ s: z.string() }) }, ({ s }) => s.toUpperCase());
    expect(await mcp.tools.call('up', { s: 'ab' })).toEqual({ content: [{ type: 'text', text: 'AB' }] });
    await expect(mcp.tools.call('nope')).rejects.toMatchObject({ code: -32602, message: "Unknown tool: 'nope'" });
  });
});
