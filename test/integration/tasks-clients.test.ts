/**
 * Tasks over real HTTP on 127.0.0.1: the official SDK v1 client's experimental 2025 tasks API
 * (SEP-1686), and raw 2026 requests for the tasks extension (the official client v2 2.4.0 has no
 * support for the extension: it never declares it and has no tasks/* calls).
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';

const stopped: string[] = [];

function createServer(): MiniMCP {
  const mcp = new MiniMCP({ name: 'tasks-it', version: '1.0.0', onError: () => {}, tasks: { pollIntervalMs: 50 } });
  mcp.tool('work', { description: 'Works for a moment', task: 'optional' }, async (args, ctx) => {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, Number(args.ms ?? 100));
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), stopped.push(String(args.label)), reject(new Error('stopped'))));
    });
    return `worked ${String(args.label)}`;
  });
  mcp.tool('only_task', { description: 'Must be a task', task: 'required' }, async () => 'task only');
  mcp.tool('confirm', { description: 'Asks the user, as a task', task: 'optional' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Really?', requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } } } });
    return `${answer.action} sure=${String(answer.content?.sure)}`;
  });
  return mcp;
}

let server: RunningServer;
beforeAll(async () => {
  server = await serve(createServer(), { port: 0 });
});
afterAll(async () => {
  await server.close();
});

async function connectV1(): Promise<{ client: ClientV1; close: () => Promise<void> }> {
  const client = new ClientV1({ name: 'v1', version: '1.0.0' });
  const transport = new TransportV1(new URL(server.url));
  await client.connect(transport);
  return { client, close: () => client.close() };
}

describe('official SDK v1 client, 2025-11-25 tasks', () => {
  it('sees the tasks capability and execution.taskSupport', async () => {
    const { client, close } = await connectV1();
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === 'work')?.execution).toEqual({ taskSupport: 'optional' });
    await close();
  });

  it('callToolStream: taskCreated, then the result; tasks/get and tasks/list show it completed', async () => {
    const { client, close } = await connectV1();
    const kinds: string[] = [];
    let taskId = '';
    let result: unknown;
    for await (const message of client.experimental.tasks.callToolStream({ name: 'work', arguments: { label: 'stream' } }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
      kinds.push(message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') result = message.result;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'worked stream' }] });
    const task = await client.experimental.tasks.getTask(taskId);
    expect(task).toMatchObject({ taskId, status: 'completed', ttl: 60_000 });
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);
    await close();
  });

  it('a task keeps running and keeps its result after the client that created it disconnects', async () => {
    const first = await connectV1();
    const created = await first.client.request(
      { method: 'tools/call', params: { name: 'work', arguments: { label: 'orphan', ms: 150 }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    await first.close();
    const second = await connectV1();
    const result = await second.client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'worked orphan' }]);
    await second.close();
  });

  it('tasks/cancel stops the handler; cancelling a terminal task is -32602', async () => {
    const { client, close } = await connectV1();
    const created = await client.request({ method: 'tools/call', params: { name: 'work', arguments: { label: 'cancel-me', ms: 10_000 }, task: {} } }, CreateTaskResultSchema);
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled).toMatchObject({ taskId: created.task.taskId, status: 'cancelled' });
    expect(stopped).toContain('cancel-me');
    await expect(client.experimental.tasks.cancelTask(created.task.taskId)).rejects.toMatchObject({ code: -32602 });
    await close();
  });

  it('input_required: callToolStream calls tasks/result, answers the elicitation sent on that stream, and gets the result', async () => {
    const client = new ClientV1({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { sure: true } };
    });
    await client.connect(new TransportV1(new URL(server.url)));
    const kinds: string[] = [];
    let taskId = '';
    let result: unknown;
    for await (const message of client.experimental.tasks.callToolStream({ name: 'confirm', arguments: {} }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
      kinds.push(message.type === 'taskStatus' ? message.task.status : message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    expect(kinds).toContain('input_required');
    expect(kinds.at(-1)).toBe('result');
    expect(asked).toEqual([{ message: 'Really?', requestedSchema: expect.any(Object), _meta: { 'io.modelcontextprotocol/related-task': { taskId } } }]);
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'accept sure=true' }], _meta: { 'io.modelcontextprotocol/related-task': { taskId } } });
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('completed');
    await client.close();
  });

  it('a required task tool called without task is -32601', async () => {
    const { client, close } = await connectV1();
    await expect(client.callTool({ name: 'only_task', arguments: {} })).rejects.toMatchObject({ code: -32601 });
    await close();
  });
});

describe('raw HTTP, 2026-07-28 tasks extension', () => {
  const EXT = 'io.modelcontextprotocol/tasks';
  let id = 0;
  async function post(method: string, params: Record<string, unknown>, name?: string): Promise<any> {
    const body = {
      jsonrpc: '2.0', id: ++id, method,
      params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } } },
    };
    const headers: Record<string, string> = {
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': method,
    };
    if (name !== undefined) headers['mcp-name'] = name;
    const response = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(body) });
    return response.json();
  }

  it('discover advertises the extension; tools/call creates a task that tasks/get (with Mcp-Name) reads to completion', async () => {
    expect((await post('server/discover', {})).result.capabilities.extensions).toEqual({ [EXT]: {} });
    const created = (await post('tools/call', { name: 'work', arguments: { label: 'raw' } }, 'work')).result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    let task: any;
    for (let i = 0; i < 100; i++) {
      task = (await post('tasks/get', { taskId: created.taskId }, created.taskId)).result;
      if (task.status !== 'working') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(task).toMatchObject({ resultType: 'complete', status: 'completed', result: { content: [{ type: 'text', text: 'worked raw' }] } });
    expect((await post('tasks/get', { taskId: created.taskId }, 'wrong-id')).error.code).toBe(-32020);
  });
});
