/** createTestClient (minimcp/testing): both eras in process, client handlers, progress, logs, listen, errors. */
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { McpError, MiniMCP } from '../../src/index.js';
import { createTestClient, type TestEra } from '../../src/testing/index.js';

function server() {
  const mcp = new MiniMCP<{ user: string }>({ name: 'under-test', version: '1.0.0', onError: () => {} });
  mcp.tool('add', { input: z.object({ a: z.number(), b: z.number() }), output: z.object({ sum: z.number() }) }, ({ a, b }) => ({ sum: a + b }));
  mcp.tool('whoami', {}, (_args, ctx) => ctx.scope.user);
  mcp.tool('fail', {}, () => {
    throw new Error('boom');
  });
  mcp.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    const roots = await ctx.listRoots();
    const sample = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    return `${answer.action}:${String(answer.content?.name)} roots=${roots.roots.length} model=${sample.model}`;
  });
  mcp.tool('slow', {}, async (_args, ctx) => {
    for (let i = 1; i <= 3; i++) {
      ctx.progress(i, 3, `step ${i}`);
      ctx.log('info', `step ${i}`);
      await new Promise((r) => setTimeout(r, 1));
    }
    return 'done';
  });
  mcp.tool('hang', {}, (_args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))));
  mcp.prompt('greet', { arguments: z.object({ name: z.string() }), complete: { name: (v) => ['Ada', 'Alan', 'Bo'].filter((n) => n.startsWith(v)) } }, ({ name }) => `Hello ${name}`);
  mcp.resource('memo://one', { name: 'one' }, () => 'first');
  mcp.resourceTemplate('memo://items/{id}', { name: 'item' }, (_uri, { id }) => `item ${id}`);
  return mcp;
}

// The server declares its Scope type, so every client of it gives one (issue 26 item 4).
const asUser = { scope: { user: 'u1' } };

const answers = {
  onElicit: () => ({ action: 'accept' as const, content: { name: 'Ada' } }),
  onRoots: () => ({ roots: [{ uri: 'file:///tmp' }] }),
  onSample: () => ({ role: 'assistant' as const, content: { type: 'text', text: 'ok' }, model: 'test-model' }),
};

describe.each<TestEra>(['2025-11-25', '2026-07-28'])('createTestClient, era %s', (era) => {
  it('calls tools with typed structured results and the scope', async () => {
    const client = createTestClient(server(), { ...asUser, era, scope: { user: 'u1' } });
    const result = await client.callTool<{ sum: number }>('add', { a: 2, b: 3 });
    expect(result.structuredContent?.sum).toBe(5);
    expect(result.isError).toBeUndefined();
    expect((await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'u1' }]);
  });

  it('a throwing tool is an isError result; a protocol error is thrown as McpError with code and data', async () => {
    const client = createTestClient(server(), { ...asUser, era });
    expect((await client.callTool('fail')).isError).toBe(true);
    const invalid = await client.callTool('add', { a: 'x' });
    expect(invalid.isError).toBe(true);
    const error = await client.readResource('memo://missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602, data: { uri: 'memo://missing' } });
    await expect(client.callTool('nope')).rejects.toMatchObject({ code: -32602, message: "Unknown tool: 'nope'" });
    await expect(client.request('no/such/method')).rejects.toMatchObject({ code: -32601 });
  });

  it('answers elicitation, roots and sampling through the handlers', async () => {
    const client = createTestClient(server(), { ...asUser, era, ...answers });
    expect((await client.callTool('ask')).content).toEqual([{ type: 'text', text: 'accept:Ada roots=1 model=test-model' }]);
  });

  it('without a handler the server sees a client that lacks the capability', async () => {
    const client = createTestClient(server(), { ...asUser, era });
    const result = await client.callTool('ask').catch((e: McpError) => e);
    if (era === '2026-07-28') expect(result).toMatchObject({ code: -32021 });
    else expect((result as { isError?: boolean }).isError).toBe(true);
  });

  it('reports progress and logs', async () => {
    const logs: unknown[] = [];
    const client = createTestClient(server(), { ...asUser, era, onLog: (m) => logs.push(m.data) });
    const progress: number[] = [];
    const result = await client.callTool('slow', {}, { onProgress: (p) => progress.push(p.progress / p.total!) });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(progress).toEqual([1 / 3, 2 / 3, 1]);
    expect(logs).toEqual(['step 1', 'step 2', 'step 3']);
  });

  it('cancels through the signal', async () => {
    const client = createTestClient(server(), { ...asUser, era });
    const abort = new AbortController();
    const pending = client.callTool('hang', {}, { signal: abort.signal });
    setTimeout(() => abort.abort(), 5);
    await expect(pending).rejects.toBeDefined();
  });

  it('gets prompts, reads resources and templates, completes, lists', async () => {
    const client = createTestClient(server(), { ...asUser, era });
    expect((await client.getPrompt('greet', { name: 'Ada' })).messages[0]!.content).toEqual({ type: 'text', text: 'Hello Ada' });
    expect((await client.readResource('memo://items/7')).contents[0]).toMatchObject({ uri: 'memo://items/7', text: 'item 7' });
    expect((await client.complete({ prompt: 'greet' }, { name: 'name', value: 'A' })).values).toEqual(['Ada', 'Alan']);
    expect((await client.listTools()).map((t) => t.name)).toContain('add');
    expect(await client.listPrompts()).toHaveLength(1);
    expect((await client.listResources()).map((r) => r.uri)).toEqual(['memo://one']);
    expect((await client.listResourceTemplates()).map((r) => r.uriTemplate)).toEqual(['memo://items/{id}']);
  });

  it('listens for list_changed and resource updates', async () => {
    const mcp = server();
    const client = createTestClient(mcp, { ...asUser, era });
    const seen: string[] = [];
    const listening = await client.listen({ tools: true, resourceUris: ['memo://one'] }, (n) => seen.push(n.method));
    mcp.tool('late', {}, () => 'x');
    mcp.prompt('ignored', {}, () => 'x'); // prompts were not asked for
    mcp.notifyResourceUpdated('memo://one');
    await listening.close();
    mcp.tool('after-close', {}, () => 'x');
    expect(seen).toEqual(['notifications/tools/list_changed', 'notifications/resources/updated']);
    expect(listening.notifications[1]!.params?.uri).toBe('memo://one');
  });
});

it('connect() returns the handshake answer of the chosen era', async () => {
  expect((await createTestClient(server(), asUser).connect()).protocolVersion).toBe('2025-11-25');
  expect((await createTestClient(server(), { ...asUser, era: '2026-07-28' }).connect()).supportedVersions).toEqual(['2026-07-28']);
  expect(() => createTestClient(server(), { ...asUser, era: '2024' as TestEra })).toThrow(/unknown era/);
});
