/**
 * Issue 17: what a client reads when a handler fails. A UserError's message is meant for the client
 * and is shown as is; anything else thrown is the server's fault: the client gets the generic text (the
 * `errorMessage` option), the server log (`onError`) gets the error. Never a stack.
 */
import { describe, expect, it } from 'vitest';
import { McpError, MiniMCP, UserError } from '../../src/index.js';

const req = (method: string, params: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method, params });

function server(options: { errorMessage?: string; debug?: boolean } = {}) {
  const logged: unknown[] = [];
  const mcp = new MiniMCP({ name: 'errors', version: '1.0.0', ...options, onError: (error) => logged.push(error) });
  const secret = new Error('connect ECONNREFUSED 10.0.3.7:5432 (db-internal.corp)');
  mcp.tool('user', {}, () => {
    throw new UserError('No city named "Oslp"; did you mean "Oslo"?');
  });
  mcp.tool('fault', {}, async () => {
    throw secret;
  });
  mcp.tool('deliberate', {}, () => {
    throw new McpError(1000, 'Quota exceeded');
  });
  mcp.prompt('user', {}, () => {
    throw new UserError('This prompt needs a project first');
  });
  mcp.prompt('fault', {}, () => {
    throw secret;
  });
  mcp.resource('test://user', {}, () => {
    throw new UserError('The report is still being written');
  });
  mcp.resource('test://fault', {}, async () => {
    throw secret;
  });
  const tool = async (name: string) => ((await mcp.dispatch(req('tools/call', { name }))).reply as any).result;
  const prompt = async (name: string) => ((await mcp.dispatch(req('prompts/get', { name }))).reply as any).error;
  const read = async (uri: string) => ((await mcp.dispatch(req('resources/read', { uri }))).reply as any).error;
  return { logged, secret, tool, prompt, read };
}

describe('UserError and the generic text', () => {
  it("a tool: a UserError's message is the isError text and is not logged; any other throw is the generic text, logged", async () => {
    const s = server();
    expect(await s.tool('user')).toEqual({ content: [{ type: 'text', text: 'No city named "Oslp"; did you mean "Oslo"?' }], isError: true });
    expect(await s.tool('deliberate')).toEqual({ content: [{ type: 'text', text: 'Quota exceeded' }], isError: true });
    expect(await s.tool('fault')).toEqual({ content: [{ type: 'text', text: 'The tool failed' }], isError: true });
    expect(s.logged).toEqual([s.secret]);
  });

  it('a prompt or resource: a UserError is -32603 with its message; any other throw is -32603 with the generic text', async () => {
    const s = server();
    expect(await s.prompt('user')).toEqual({ code: -32603, message: 'This prompt needs a project first' });
    expect(await s.read('test://user')).toEqual({ code: -32603, message: 'The report is still being written' });
    expect(await s.prompt('fault')).toEqual({ code: -32603, message: 'Internal error' });
    expect(await s.read('test://fault')).toEqual({ code: -32603, message: 'Internal error' });
    expect(s.logged).toEqual([s.secret, s.secret]);
  });

  it('the errorMessage option sets the generic text for tools, prompts and resources alike', async () => {
    const s = server({ errorMessage: 'Something went wrong on our side; the team has been told.' });
    expect((await s.tool('fault')).content[0].text).toBe('Something went wrong on our side; the team has been told.');
    expect((await s.prompt('fault')).message).toBe('Something went wrong on our side; the team has been told.');
    expect((await s.read('test://fault')).message).toBe('Something went wrong on our side; the team has been told.');
    expect((await s.tool('user')).content[0].text).toBe('No city named "Oslp"; did you mean "Oslo"?');
  });

  it('debug: true shows the message of an unexpected error (never its stack)', async () => {
    const s = server({ debug: true });
    const text = (await s.tool('fault')).content[0].text as string;
    expect(text).toBe('connect ECONNREFUSED 10.0.3.7:5432 (db-internal.corp)');
    expect(JSON.stringify(await s.prompt('fault'))).not.toMatch(/\bat .*:\d+:\d+/);
  });

  it('refuses an empty or non-string errorMessage', () => {
    expect(() => new MiniMCP({ name: 'x', version: '1', errorMessage: '' })).toThrow(/errorMessage must be a non-empty string/);
    expect(() => new MiniMCP({ name: 'x', version: '1', errorMessage: 42 as never })).toThrow(/errorMessage must be a non-empty string/);
  });

  it('framework errors a handler may leave uncaught are UserErrors: the client reads why', async () => {
    const mcp = new MiniMCP({ name: 'x', version: '1', onError: () => {} });
    mcp.tool('ask', {}, async (_args, ctx) => JSON.stringify(await ctx.sample({ messages: [], maxTokens: 1 })));
    const reply = (await mcp.dispatch(req('tools/call', { name: 'ask' }))).reply as any;
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0].text).toMatch(/did not declare the capability sampling\/createMessage needs/);
  });
});
