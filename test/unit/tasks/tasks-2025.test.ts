/**
 * 2025-11-25 tasks (SEP-1686) through the core: every state transition and error, the task's
 * questions on the tasks/result stream, notifications/tasks/status, related-task `_meta`, TTL and the cap.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP, ProtocolError, UserError } from '../../../src/index.js';
import type { Connection } from '../../../src/transport.js';
import { until } from '../../support/until.js';

const RELATED = 'io.modelcontextprotocol/related-task';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CLIENT_CAPS = { tasks: { requests: { elicitation: { create: {} } } }, elicitation: {}, roots: {} };
let nextId = 1;

function server(tasks: Record<string, number> = {}) {
  const mcp = new MiniMCP<{ principal?: string }>({ name: 't', version: '1', onError: () => {}, tasks: { pollIntervalMs: 20, ...tasks } });
  const stopped: string[] = [];
  const waitOrStop = (ctx: { signal: AbortSignal }, label: string, ms: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), stopped.push(label), reject(new Error('stopped'))));
    });
  mcp.tool('slow', { task: 'optional' }, async (args, ctx) => {
    await waitOrStop(ctx, 'slow', Number(args.ms ?? 60));
    return 'slow done';
  });
  mcp.tool('chatty', { task: 'optional' }, async (_a, ctx) => {
    await sleep(60); // the client's tasks/result stream is open by then
    ctx.progress(1, 2, 'half');
    ctx.log('info', 'halfway');
    await sleep(20);
    return 'chatty done';
  });
  mcp.tool('ask', { task: 'optional' }, async (_a, ctx) => {
    const answer = await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    const roots = await ctx.listRoots();
    return `answer=${String(answer.content?.ok)} roots=${roots.roots.length}`;
  });
  mcp.tool('ask_or_stop', { task: 'optional' }, async (_a, ctx) => {
    try {
      await ctx.elicit({ message: 'wait', requestedSchema: { type: 'object', properties: {} } });
    } catch (error) {
      stopped.push(`ask_or_stop: ${(error as Error).message}`);
      throw error;
    }
    return 'answered';
  });
  mcp.tool('tool_error', { task: 'optional' }, async () => {
    await sleep(10);
    throw new UserError('tool broke'); // meant for the model: its text is the result
  });
  mcp.tool('protocol_error', { task: 'optional' }, async () => {
    await sleep(10);
    throw new ProtocolError(-32602, 'bad thing', { why: 'test' });
  });
  mcp.tool('must', { task: 'required' }, async () => 'must done');
  mcp.tool('close_later', { task: 'optional' }, async (_a, ctx) => {
    await sleep(20);
    ctx.closeStream(); // the request that created the task was answered long ago
    return 'closed nothing';
  });

  /** One 2025 client: its own connection (initialized with CLIENT_CAPS) and principal. */
  async function client(principal = 'alice') {
    const connection: Connection = {};
    const facts = (send?: (m: any) => void) => ({ scope: { principal }, connection, send });
    const call = async (method: string, params: Record<string, unknown> = {}, send?: (m: any) => void) =>
      (await mcp.dispatch({ jsonrpc: '2.0', id: nextId++, method, params }, facts(send))).reply as any;
    const answer = async (id: unknown, result: Record<string, unknown>) => mcp.dispatch({ jsonrpc: '2.0', id, result }, facts());
    const answerError = async (id: unknown, error: Record<string, unknown>) => mcp.dispatch({ jsonrpc: '2.0', id, error }, facts());
    const init = await call('initialize', { protocolVersion: '2025-11-25', capabilities: CLIENT_CAPS, clientInfo: { name: 'c', version: '1' } });
    expect(init.result.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const start = async (name: string, args: Record<string, unknown> = {}, task: Record<string, unknown> = {}) => {
      const reply = await call('tools/call', { name, arguments: args, task });
      if (!reply.result?.task) throw new Error(`no task: ${JSON.stringify(reply)}`);
      return reply.result.task.taskId as string;
    };
    const status = async (taskId: string) => (await call('tasks/get', { taskId })).result?.status;
    return { call, answer, answerError, start, status, connection };
  }
  return { mcp, client, stopped };
}

describe('tasks (2025-11-25)', () => {
  it('working -> completed: CreateTaskResult, tasks/get, then tasks/result with exactly the result and related-task _meta', async () => {
    const { client } = server();
    const c = await client();
    const created = (await c.call('tools/call', { name: 'slow', task: { ttl: 60_000 } })).result;
    expect(created.task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 20 });
    const { taskId } = created.task;
    expect(await c.status(taskId)).toBe('working');
    const result = await c.call('tasks/result', { taskId });
    expect(result.result).toEqual({ content: [{ type: 'text', text: 'slow done' }], _meta: { [RELATED]: { taskId } } });
    expect(await c.status(taskId)).toBe('completed');
    expect((await c.call('tasks/list')).result.tasks.map((t: any) => t.taskId)).toEqual([taskId]);
    // A ttl past maxTtlMs is capped; none at all gets defaultTtlMs.
    expect((await c.call('tools/call', { name: 'slow', arguments: { ms: 1 }, task: { ttl: 10 ** 12 } })).result.task.ttl).toBe(86_400_000);
    expect((await c.call('tools/call', { name: 'slow', arguments: { ms: 1 }, task: {} })).result.task.ttl).toBe(3_600_000);
  });

  it('working -> input_required -> working -> completed: the questions go out on the tasks/result stream and the POSTed answers resume the task', async () => {
    const { client } = server();
    const c = await client();
    const taskId = await c.start('ask');
    await until(() => c.status(taskId), (s) => s === 'input_required');
    const sent: any[] = [];
    const pending = c.call('tasks/result', { taskId }, (m) => sent.push(m));
    const elicit = await until(() => sent.find((m) => m.method === 'elicitation/create'), Boolean);
    expect(elicit.id).toEqual(expect.any(String));
    expect(elicit.params).toMatchObject({ message: 'ok?', _meta: { [RELATED]: { taskId } } });
    expect(await c.answer(elicit.id, { action: 'accept', content: { ok: true } })).toMatchObject({ reply: undefined });
    const roots = await until(() => sent.find((m) => m.method === 'roots/list'), Boolean);
    expect(roots.params._meta).toEqual({ [RELATED]: { taskId } });
    await c.answer(roots.id, { roots: [{ uri: 'file:///a' }] });
    const result = await pending;
    expect(result.result.content).toEqual([{ type: 'text', text: 'answer=true roots=1' }]);
    // Status changes seen by the stream, in order: the full Task, without related-task _meta.
    const statuses = sent.filter((m) => m.method === 'notifications/tasks/status');
    expect(statuses.map((m) => m.params.status)).toEqual(['working', 'input_required', 'working', 'completed']);
    expect(statuses[0].params).toMatchObject({ taskId, ttl: 3_600_000, createdAt: expect.any(String), lastUpdatedAt: expect.any(String) });
    expect(statuses.every((m) => m.params._meta === undefined)).toBe(true);
  });

  it('a question whose stream closed stays open, and the next tasks/result stream asks it again', async () => {
    const { client, mcp } = server();
    const c = await client();
    const taskId = await c.start('ask');
    await until(() => c.status(taskId), (s) => s === 'input_required');
    const abort = new AbortController();
    const first: any[] = [];
    const firstStream = mcp.dispatch(
      { jsonrpc: '2.0', id: 'first', method: 'tasks/result', params: { taskId } },
      { scope: { principal: 'alice' }, connection: c.connection, send: (m) => first.push(m), signal: abort.signal },
    );
    const asked = await until(() => first.find((m) => m.method === 'elicitation/create'), Boolean);
    abort.abort(); // the client went away before answering
    await firstStream;
    expect(await c.answer(asked.id, { action: 'accept', content: { ok: true } })).toMatchObject({ reply: { error: { code: -32600 } } });
    expect(await c.status(taskId)).toBe('input_required');
    const second: any[] = [];
    const secondStream = c.call('tasks/result', { taskId }, (m) => second.push(m));
    const again = await until(() => second.find((m) => m.method === 'elicitation/create'), Boolean);
    expect(again.id).not.toBe(asked.id);
    await c.answer(again.id, { action: 'decline' });
    const roots = await until(() => second.find((m) => m.method === 'roots/list'), Boolean);
    await c.answer(roots.id, { roots: [] });
    expect((await secondStream).result.content[0].text).toBe('answer=undefined roots=0');
  });

  it('a client error answer ends the handler\'s wait with that error', async () => {
    const { client, stopped } = server();
    const c = await client();
    const taskId = await c.start('ask_or_stop');
    const sent: any[] = [];
    const pending = c.call('tasks/result', { taskId }, (m) => sent.push(m));
    const elicit = await until(() => sent.find((m) => m.method === 'elicitation/create'), Boolean);
    await c.answerError(elicit.id, { code: -1, message: 'user closed the dialog' });
    const result = (await pending).result;
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('user closed the dialog') }] });
    expect(stopped).toEqual(['ask_or_stop: The client answered with an error: user closed the dialog']);
    expect(await c.status(taskId)).toBe('failed');
  });

  it('progress and logs of a task reach the tasks/result stream with related-task _meta', async () => {
    const { client } = server();
    const c = await client();
    const created = await c.call('tools/call', { name: 'chatty', task: {}, _meta: { progressToken: 'p1' } });
    const { taskId } = created.result.task;
    const sent: any[] = [];
    await c.call('tasks/result', { taskId }, (m) => sent.push(m));
    const progress = sent.find((m) => m.method === 'notifications/progress');
    expect(progress.params).toEqual({ progressToken: 'p1', progress: 1, total: 2, message: 'half', _meta: { [RELATED]: { taskId } } });
    const log = sent.find((m) => m.method === 'notifications/message');
    expect(log.params).toEqual({ level: 'info', data: 'halfway', _meta: { [RELATED]: { taskId } } });
  });

  it('ctx.closeStream() inside a task does not touch the stream of the request that created it', async () => {
    const { client, mcp } = server();
    const c = await client();
    let closed = 0;
    const created = (await mcp.dispatch(
      { jsonrpc: '2.0', id: 'cs', method: 'tools/call', params: { name: 'close_later', task: {} } },
      { scope: { principal: 'alice' }, connection: c.connection, closeStream: () => closed++ },
    )).reply as any;
    const result = await c.call('tasks/result', { taskId: created.result.task.taskId });
    expect(result.result.content).toEqual([{ type: 'text', text: 'closed nothing' }]);
    expect(closed).toBe(0);
  });

  it('working -> failed: an isError result (tasks/result returns it as the call would have)', async () => {
    const { client } = server();
    const c = await client();
    const taskId = await c.start('tool_error');
    const result = (await c.call('tasks/result', { taskId })).result;
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('tool broke') }] });
    expect(await c.status(taskId)).toBe('failed');
  });

  it('working -> failed: a protocol error (tasks/result returns that same JSON-RPC error)', async () => {
    const { client } = server();
    const c = await client();
    const taskId = await c.start('protocol_error');
    expect((await c.call('tasks/result', { taskId })).error).toEqual({ code: -32602, message: 'bad thing', data: { why: 'test' } });
    expect(await c.status(taskId)).toBe('failed');
  });

  it('working -> cancelled: tasks/cancel answers the cancelled task and stops the handler; again is -32602', async () => {
    const { client, stopped } = server();
    const c = await client();
    const taskId = await c.start('slow', { ms: 10_000 });
    const cancelled = (await c.call('tasks/cancel', { taskId })).result;
    expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
    expect(stopped).toEqual(['slow']);
    await sleep(30);
    expect(await c.status(taskId)).toBe('cancelled');
    const again = (await c.call('tasks/cancel', { taskId })).error;
    expect(again).toMatchObject({ code: -32602, message: expect.stringContaining('already cancelled') });
    // There is no result to return: tasks/result says the task was cancelled.
    expect((await c.call('tasks/result', { taskId })).error).toMatchObject({ code: -32602, message: expect.stringContaining('was cancelled') });
  });

  it('input_required -> cancelled: the waiting elicit rejects and the task stays cancelled', async () => {
    const { client, stopped } = server();
    const c = await client();
    const taskId = await c.start('ask_or_stop');
    await until(() => c.status(taskId), (s) => s === 'input_required');
    expect((await c.call('tasks/cancel', { taskId })).result.status).toBe('cancelled');
    await until(() => stopped.length, (n) => n > 0);
    expect(stopped).toEqual(['ask_or_stop: The task was cancelled']);
    expect(await c.status(taskId)).toBe('cancelled');
  });

  it('tasks/cancel of a completed or failed task is -32602', async () => {
    const { client } = server();
    const c = await client();
    const done = await c.start('slow', { ms: 1 });
    await c.call('tasks/result', { taskId: done });
    expect((await c.call('tasks/cancel', { taskId: done })).error).toMatchObject({ code: -32602, message: expect.stringContaining('already completed') });
    const failed = await c.start('protocol_error');
    await c.call('tasks/result', { taskId: failed });
    expect((await c.call('tasks/cancel', { taskId: failed })).error).toMatchObject({ code: -32602, message: expect.stringContaining('already failed') });
  });

  it('TTL expiry: a running task past its ttl is stopped and forgotten (tasks/get -32602)', async () => {
    const { client, stopped } = server({ heartbeatMs: 10, minTtlMs: 1 });
    const c = await client();
    const taskId = await c.start('slow', { ms: 10_000 }, { ttl: 40 });
    expect(await c.status(taskId)).toBe('working');
    await until(() => stopped.length, (n) => n > 0);
    expect(stopped).toEqual(['slow']);
    await sleep(20);
    expect((await c.call('tasks/get', { taskId })).error.code).toBe(-32602);
    expect((await c.call('tasks/result', { taskId })).error.code).toBe(-32602);
  });

  it('caps kept tasks per principal: past maxPerPrincipal -32602, other principals unaffected, an ended task still counts until it expires', async () => {
    const { client } = server({ maxPerPrincipal: 2 });
    const alice = await client('alice');
    const first = await alice.start('slow', { ms: 10_000 });
    await alice.start('slow', { ms: 10_000 });
    const refused = await alice.call('tools/call', { name: 'slow', arguments: { ms: 10_000 }, task: {} });
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining('Too many tasks'), data: { bound: 'maxPerPrincipal' } });
    const bob = await client('bob');
    expect(await bob.start('slow', { ms: 1 })).toEqual(expect.any(String));
    await alice.call('tasks/cancel', { taskId: first });
    const again = await alice.call('tools/call', { name: 'slow', arguments: { ms: 1 }, task: {} });
    expect(again.error).toMatchObject({ code: -32602, data: { bound: 'maxPerPrincipal' } });
  });

  it('another principal\'s task is an unknown id for get, result and cancel, and absent from its list', async () => {
    const { client, stopped } = server();
    const alice = await client('alice');
    const mallory = await client('mallory');
    const taskId = await alice.start('slow', { ms: 10_000 });
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      expect((await mallory.call(method, { taskId })).error.code).toBe(-32602);
    }
    expect((await mallory.call('tasks/list')).result.tasks).toEqual([]);
    expect(stopped).toEqual([]);
    expect((await alice.call('tasks/get', { taskId: 'no-such-task' })).error.code).toBe(-32602);
    expect((await alice.call('tasks/list', { cursor: 'bogus' })).error.code).toBe(-32602);
  });

  it('a required task tool called without task is -32601; a bad task param is -32602', async () => {
    const { client } = server();
    const c = await client();
    expect((await c.call('tools/call', { name: 'must' })).error).toMatchObject({ code: -32601, message: expect.stringContaining('must be called as a task') });
    expect((await c.call('tools/call', { name: 'must', task: { ttl: -1 } })).error.code).toBe(-32602);
    expect((await c.call('tools/call', { name: 'must', task: 'yes' })).error.code).toBe(-32602);
  });
});
