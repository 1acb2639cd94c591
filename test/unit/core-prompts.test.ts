/** prompts/list and prompts/get: arguments, required checks, message conversion, internal errors. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiniMCP, McpError, content } from '../../src/index.js';

const base = { name: 'prompts', version: '1.0.0' };
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const get = (mcp: MiniMCP, name: string, args?: unknown) =>
  mcp.dispatch(req('prompts/get', args === undefined ? { name } : { name, arguments: args }));
const getResult = async (mcp: MiniMCP, name: string, args?: unknown) => {
  const outcome = await get(mcp, name, args);
  expect(outcome.status).toBe(200);
  expect((outcome.reply as any).error).toBeUndefined();
  return (outcome.reply as any).result;
};

describe('prompts/list', () => {
  it('publishes name, title, description, arguments, icons and _meta', async () => {
    const mcp = new MiniMCP({ ...base, onError: () => {} });
    mcp.prompt('review', {
      title: 'Review', description: 'Reviews code', icons: [{ src: 'data:image/png;base64,AA==' }], _meta: { 'x.y/z': true },
      arguments: [{ name: 'code', description: 'The code', required: true }, { name: 'style', title: 'Style' }],
    }, () => 'x');
    mcp.prompt('bare', {}, () => 'x');
    mcp.prompt('schema', { arguments: z.object({ a: z.string().describe('A thing'), b: z.string().optional() }) }, () => 'x');
    const result = ((await mcp.handle(req('prompts/list'))) as any).result;
    expect(result).toEqual({
      prompts: [
        {
          name: 'review', title: 'Review', description: 'Reviews code', icons: [{ src: 'data:image/png;base64,AA==' }],
          _meta: { 'x.y/z': true },
          arguments: [{ name: 'code', description: 'The code', required: true }, { name: 'style', title: 'Style' }],
        },
        { name: 'bare' },
        { name: 'schema', arguments: [{ name: 'a', description: 'A thing', required: true }, { name: 'b' }] },
      ],
    });
  });
});

describe('prompts/get: errors', () => {
  const mcp = new MiniMCP({ ...base, onError: () => {} });
  mcp.prompt('two', { arguments: [{ name: 'a', required: true }, { name: 'b', required: true }, { name: 'c' }] }, (args) => JSON.stringify(args));
  mcp.prompt('typed', { arguments: z.object({ n: z.string().regex(/^\d+$/) }) }, ({ n }) => `n=${n}`);

  it('unknown prompt is -32602 in-band', async () => {
    expect(await get(mcp, 'nope')).toEqual({
      reply: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: "Unknown prompt: 'nope'" } }, status: 200,
    });
  });

  it('missing name is -32602', async () => {
    expect(await mcp.handle(req('prompts/get', {}))).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'params.name must be a string' },
    });
  });

  it('missing required arguments: -32602 whose data is the array of their names', async () => {
    expect((await get(mcp, 'two')).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Missing required arguments: a, b', data: ['a', 'b'] },
    });
    expect((await get(mcp, 'two', { b: 'x', c: 'y' })).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Missing required arguments: a', data: ['a'] },
    });
  });

  it('arguments that are not an object are -32602', async () => {
    for (const args of [['a'], 'a', 3]) {
      expect((await get(mcp, 'two', args)).reply).toEqual({
        jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Prompt arguments must be an object' },
      });
    }
  });

  it('arguments failing a schema are -32602 naming the prompt', async () => {
    const reply = (await get(mcp, 'typed', { n: 'abc' })).reply as any;
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).toMatch(/^Invalid arguments for prompt 'typed': n: /);
    expect(await getResult(mcp, 'typed', { n: '12' })).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'n=12' } }] });
  });

  it('a required argument of a schema prompt is reported as missing with data', async () => {
    expect((await get(mcp, 'typed', {})).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Missing required arguments: n', data: ['n'] },
    });
  });
});

describe('prompts/get: internal errors never leak', () => {
  const make = (debug: boolean) => {
    const logged: unknown[] = [];
    const mcp = new MiniMCP({ ...base, debug, onError: (e) => logged.push(e) });
    mcp.prompt('leaky', {}, () => {
      throw new Error('secret /etc/path');
    });
    mcp.prompt('typed-error', {}, () => {
      throw new TypeError('Cannot read properties of undefined (reading "x") at /srv/app/node_modules/lib.js:1:1');
    });
    mcp.prompt('refuses', {}, () => {
      throw new McpError(-32602, 'Pick another topic', { topic: 'x' });
    });
    mcp.prompt('app', {}, () => {
      throw new McpError(1000, 'App says no');
    });
    return { mcp, logged };
  };

  it('answers -32603 "Internal error" without message, stack or path', async () => {
    const { mcp, logged } = make(false);
    const outcome = await get(mcp, 'leaky');
    expect(outcome).toEqual({ reply: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } }, status: 200 });
    const text = JSON.stringify(outcome.reply);
    expect(text).not.toContain('secret');
    expect(text).not.toContain('/etc/path');
    expect(text).not.toContain('stack');
    expect(logged).toHaveLength(1);
    expect((logged[0] as Error).message).toBe('secret /etc/path');
    const other = await get(mcp, 'typed-error');
    expect(other.reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
  });

  it('includes the message only with debug: true', async () => {
    const { mcp } = make(true);
    expect((await get(mcp, 'leaky')).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error: secret /etc/path' },
    });
  });

  it('an McpError from a prompt handler is sent as is, with data', async () => {
    const { mcp, logged } = make(false);
    expect((await get(mcp, 'refuses')).reply).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Pick another topic', data: { topic: 'x' } },
    });
    expect((await get(mcp, 'app')).reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: 1000, message: 'App says no' } });
    expect(logged).toHaveLength(0);
  });

  it('an onError option that throws does not take the server down', async () => {
    const mcp = new MiniMCP({ ...base, onError: () => { throw new Error('log broke'); } });
    mcp.prompt('leaky', {}, () => { throw new Error('x'); });
    expect((await get(mcp, 'leaky')).reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
  });
});

describe('prompts/get: message conversion', () => {
  const mcp = new MiniMCP({ ...base, onError: () => {} });
  mcp.prompt('str', { description: 'A string prompt' }, () => 'Hello');
  mcp.prompt('arr', {}, () => ['one', { role: 'assistant', content: 'two' }, content.image('AAAA', 'image/png')]);
  mcp.prompt('block', {}, () => content.resource({ uri: 'test://r', text: 'r' }));
  mcp.prompt('msg', {}, () => ({ role: 'assistant', content: { type: 'text', text: 'as block' } }));
  mcp.prompt('full', { description: 'outer' }, () => ({
    description: 'inner', messages: [{ role: 'user', content: { type: 'text', text: 'f' } }], _meta: { 'a.b/c': 1 },
  }));
  mcp.prompt('fullNoDesc', { description: 'outer' }, () => ({ messages: [] }));
  mcp.prompt('bad', {}, () => 42);
  mcp.prompt('args', { arguments: [{ name: 'x' }] }, (args) => `x=${args.x}`);
  mcp.prompt('async', {}, async () => {
    await new Promise((r) => setTimeout(r, 1));
    return 'later';
  });

  it('a string becomes one user text message, with the registered description', async () => {
    expect(await getResult(mcp, 'str')).toEqual({
      description: 'A string prompt', messages: [{ role: 'user', content: { type: 'text', text: 'Hello' } }],
    });
  });

  it('an array becomes several messages (strings, messages with string content, blocks)', async () => {
    expect(await getResult(mcp, 'arr')).toEqual({
      messages: [
        { role: 'user', content: { type: 'text', text: 'one' } },
        { role: 'assistant', content: { type: 'text', text: 'two' } },
        { role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } },
      ],
    });
  });

  it('a content block becomes a user message; a message passes through', async () => {
    expect(await getResult(mcp, 'block')).toEqual({
      messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'test://r', text: 'r' } } }],
    });
    expect(await getResult(mcp, 'msg')).toEqual({
      messages: [{ role: 'assistant', content: { type: 'text', text: 'as block' } }],
    });
  });

  it('a full GetPromptResult passes through; the registered description fills a missing one', async () => {
    expect(await getResult(mcp, 'full')).toEqual({
      description: 'inner', messages: [{ role: 'user', content: { type: 'text', text: 'f' } }], _meta: { 'a.b/c': 1 },
    });
    expect(await getResult(mcp, 'fullNoDesc')).toEqual({ description: 'outer', messages: [] });
  });

  it('a value that is no message is an internal error', async () => {
    expect((await get(mcp, 'bad')).reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
  });

  it('passes arguments through and awaits async handlers', async () => {
    expect(await getResult(mcp, 'args', { x: 'y' })).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'x=y' } }] });
    expect(await getResult(mcp, 'args')).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'x=undefined' } }] });
    expect(await getResult(mcp, 'async')).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'later' } }] });
  });

  it('mcp.prompts.get renders through the same path', async () => {
    expect(await mcp.prompts.get('args', { x: 'z' })).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'x=z' } }] });
    await expect(mcp.prompts.get('missing')).rejects.toMatchObject({ code: -32602 });
  });
});

describe('prompt registration', () => {
  it('needs a non-empty name and a handler', () => {
    const mcp = new MiniMCP(base);
    expect(() => mcp.prompt('', {}, () => 'x')).toThrow('A prompt needs a non-empty name');
    expect(() => mcp.prompts.add({ name: 'x' } as any)).toThrow('Prompt "x" needs a handler function');
  });
});
