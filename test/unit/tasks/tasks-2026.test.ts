/** 2026-07-28 tasks extension (SEP-2663) through the core: creation, tasks/get, update, cancel, principals. */
import { describe, expect, it } from 'vitest';
import { MemoryTaskStore, MiniMCP, ProtocolError, type TaskRecord, type TaskStore } from '../../../src/index.js';
import { until } from '../../support/until.js';

const EXT = 'io.modelcontextprotocol/tasks';
const meta = (caps: Record<string, unknown> = { extensions: { [EXT]: {} } }) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps,
});
const withTasks = { extensions: { [EXT]: {} }, elicitation: {} };
let nextId = 1;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function server() {
  const mcp = new MiniMCP<{ principal?: string }>({ name: 't', version: '1', onError: () => {} });
  const stopped: string[] = [];
  mcp.tool('plain', {}, () => 'plain');
  mcp.tool('quick', { task: 'optional' }, () => 'at once');
  mcp.tool('slow', { task: 'optional' }, async (_a, ctx) => {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, 200);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), stopped.push('slow'), reject(new Error('stopped'))));
    });
    return 'slow done';
  });
  mcp.tool('must', { task: 'required' }, async () => 'must done');
  mcp.tool('broken', { task: 'optional' }, async () => { throw new Error('tool broke'); });
  mcp.tool('ask', { task: 'optional' }, async (_a, ctx) => {
    await ctx.task();
    const answer = await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }, { key: 'q' });
    return `answer=${String(answer.content?.ok)}`;
  });
  mcp.tool('mrtr_then_task', { task: 'required' }, async (_a, ctx) => {
    const answer = await ctx.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: { n: { type: 'string' } } } }, { key: 'name' });
    await sleep(20);
    return `hi ${String(answer.content?.n)}`;
  });
  const call = async (method: string, params: Record<string, unknown>, caps: Record<string, unknown> = withTasks, principal = 'alice') => {
    const { reply } = await mcp.dispatch({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta(caps) } }, { scope: { principal } });
    return reply as any;
  };
  return { mcp, call, stopped };
}

describe('tasks extension (2026)', () => {
  it('advertises the extension in server/discover only when a tool can run as a task', async () => {
    const { call } = server();
    expect((await call('server/discover', {})).result.capabilities.extensions).toEqual({ [EXT]: {} });
    const bare = new MiniMCP({ name: 'b', version: '1' });
    bare.tool('x', {}, () => 'x');
    const reply = (await bare.dispatch({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta() } })).reply as any;
    expect(reply.result.capabilities.extensions).toBeUndefined();
    expect(((await bare.dispatch({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 'x', _meta: meta() } })).reply as any).error.code).toBe(-32601);
  });

  it('working -> completed: a flat creation result, then tasks/get inlines the result', async () => {
    const { call } = server();
    const created = (await call('tools/call', { name: 'slow' })).result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(created.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.task).toBeUndefined();
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
    const working = (await call('tasks/get', { taskId: created.taskId })).result;
    expect(working).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'working' });
    expect(working.result).toBeUndefined();
    const done = await until(async () => (await call('tasks/get', { taskId: created.taskId })).result, (t) => t.status !== 'working');
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'slow done' }] } });
  });

  it('a synchronous answer stays a plain result, and a client without the extension gets plain results', async () => {
    const { call } = server();
    expect((await call('tools/call', { name: 'quick' })).result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'at once' }] });
    const plain = (await call('tools/call', { name: 'slow' }, {})).result;
    expect(plain).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'slow done' }] });
    expect((await call('tools/call', { name: 'plain', task: { ttl: 5 } })).result.resultType).toBe('complete');
  });

  it('a required task tool refuses a client without the extension with -32021 naming it', async () => {
    const { call } = server();
    const reply = await call('tools/call', { name: 'must' }, {});
    expect(reply.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      expect((await call(method, { taskId: 'x', inputResponses: {} }, {})).error.code).toBe(-32021);
    }
  });

  it('tasks/result and tasks/list do not exist in 2026', async () => {
    const { call } = server();
    expect((await call('tasks/result', { taskId: 'x' })).error.code).toBe(-32601);
    expect((await call('tasks/list', {})).error.code).toBe(-32601);
  });

  it('a tool error completes with isError; a protocol error fails with the error and no result', async () => {
    const { call, mcp } = server();
    mcp.tool('protocol', { task: 'optional' }, async () => { throw new ProtocolError(-32603, 'boom'); });
    const broken = (await call('tools/call', { name: 'broken' })).result;
    const b = await until(async () => (await call('tasks/get', { taskId: broken.taskId })).result, (t) => t.status !== 'working');
    expect(b).toMatchObject({ status: 'completed', result: { isError: true } });
    const protocol = (await call('tools/call', { name: 'protocol' })).result;
    const p = await until(async () => (await call('tasks/get', { taskId: protocol.taskId })).result, (t) => t.status !== 'working');
    expect(p).toMatchObject({ status: 'failed', error: { code: -32603, message: 'boom' } });
    expect(p.result).toBeUndefined();
  });

  it('working -> input_required -> working -> completed through tasks/update (unknown keys ignored)', async () => {
    const { call } = server();
    const { taskId } = (await call('tools/call', { name: 'ask' })).result;
    const waiting = await until(async () => (await call('tasks/get', { taskId })).result, (t) => t.status === 'input_required');
    expect(waiting.inputRequests).toEqual({ q: { method: 'elicitation/create', params: expect.objectContaining({ message: 'ok?' }) } });
    expect((await call('tasks/update', { taskId, inputResponses: { other: { action: 'accept' } } })).result).toEqual({ resultType: 'complete' });
    expect((await call('tasks/get', { taskId })).result.status).toBe('input_required');
    expect((await call('tasks/update', { taskId, inputResponses: { q: { action: 'accept', content: { ok: true } } } })).result).toEqual({ resultType: 'complete' });
    const done = await until(async () => (await call('tasks/get', { taskId })).result, (t) => t.status === 'completed');
    expect(done.result.content[0].text).toBe('answer=true');
  });

  it('MRTR rounds come before the task: input_required with requestState, then a task without it', async () => {
    const { call } = server();
    const round1 = (await call('tools/call', { name: 'mrtr_then_task' })).result;
    expect(round1).toMatchObject({ resultType: 'input_required', inputRequests: { name: { method: 'elicitation/create' } } });
    expect(round1.taskId).toBeUndefined();
    const round2 = (await call('tools/call', {
      name: 'mrtr_then_task', requestState: round1.requestState, inputResponses: { name: { action: 'accept', content: { n: 'Alice' } } },
    })).result;
    expect(round2.resultType).toBe('task');
    expect(round2.requestState).toBeUndefined();
    const done = await until(async () => (await call('tasks/get', { taskId: round2.taskId })).result, (t) => t.status === 'completed');
    expect(done.result.content[0].text).toBe('hi Alice');
  });

  it('tasks/cancel aborts the handler and the task reads cancelled; cancelling again is the same empty ack', async () => {
    const { call, stopped } = server();
    const { taskId } = (await call('tools/call', { name: 'slow' })).result;
    expect((await call('tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete' });
    expect(stopped).toEqual(['slow']);
    await sleep(250);
    expect((await call('tasks/get', { taskId })).result.status).toBe('cancelled');
    expect((await call('tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete' });
  });

  it('another principal\'s task is an unknown id (-32602) for get, update and cancel', async () => {
    const { call, stopped } = server();
    const { taskId } = (await call('tools/call', { name: 'slow' })).result;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const reply = await call(method, { taskId, inputResponses: {} }, withTasks, 'mallory');
      expect(reply.error.code).toBe(-32602);
    }
    expect(stopped).toEqual([]);
    expect((await call('tasks/get', { taskId: 'no-such-task' })).error.code).toBe(-32602);
  });

  it('past the per-principal cap of kept tasks, tools/call is refused (-32602 naming the bound) and the refused handler is stopped', async () => {
    const mcp = new MiniMCP({ name: 't', version: '1', tasks: { maxPerPrincipal: 2 } });
    let stopped = 0;
    mcp.tool('wait', { task: 'optional' }, async (_a, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => (stopped++, resolve('x')))));
    const go = async () => ((await mcp.dispatch({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'wait', _meta: meta() } })).reply as any);
    expect((await go()).result.resultType).toBe('task');
    expect((await go()).result.resultType).toBe('task');
    expect((await go()).error).toMatchObject({ code: -32602, message: expect.stringContaining('Too many tasks'), data: { bound: 'maxPerPrincipal' } });
    expect(stopped).toBe(1);
  });

  it('subscriptions/listen with taskIds sends notifications/tasks for the caller\'s own tasks only', async () => {
    const { mcp, call } = server();
    const mine = (await call('tools/call', { name: 'slow' })).result.taskId;
    const theirs = (await call('tools/call', { name: 'slow' }, withTasks, 'bob')).result.taskId;
    const sent: any[] = [];
    const abort = new AbortController();
    const listening = mcp.dispatch(
      { jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: { notifications: { taskIds: [mine, theirs] }, _meta: meta(withTasks) } },
      { scope: { principal: 'alice' }, send: (m) => sent.push(m), signal: abort.signal },
    );
    await until(async () => sent.filter((m) => m.method === 'notifications/tasks'), (n) => n.length > 0);
    abort.abort();
    await listening;
    expect(sent[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [mine, theirs] } } });
    const updates = sent.filter((m) => m.method === 'notifications/tasks');
    expect(updates.map((m) => m.params.taskId)).toEqual([mine]);
    expect(updates[0].params).toMatchObject({ status: 'completed', result: { content: [{ text: 'slow done' }] }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'L' } });
  });

  it('subscriptions/listen with taskIds: a change made while the store still reads the id is sent (the watch starts first)', async () => {
    // A store whose reads answer only when the test lets them, as a slow shared store might.
    let release = () => {};
    let gated = false;
    const inner = new MemoryTaskStore();
    const slowGet = (taskId: string, principal: string) => {
      const task = inner.get(taskId, principal);
      return gated ? new Promise<TaskRecord | undefined>((resolve) => (release = () => resolve(task))) : task;
    };
    const store = new Proxy(inner, {
      get: (target, key) => (key === 'get' ? slowGet : typeof Reflect.get(target, key) === 'function' ? Reflect.get(target, key).bind(target) : Reflect.get(target, key)),
    }) as unknown as TaskStore;
    const mcp = new MiniMCP<{ principal?: string }>({ name: 't', version: '1', onError: () => {}, tasks: { store } });
    let finish = () => {};
    mcp.tool('held', { task: 'optional' }, () => new Promise<string>((resolve) => (finish = () => resolve('held done'))));
    const created = await mcp.dispatch({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'held', _meta: meta(withTasks) } }, { scope: { principal: 'alice' } });
    const taskId = (created.reply as any).result.taskId as string;
    gated = true;
    const sent: any[] = [];
    const abort = new AbortController();
    const listening = mcp.dispatch(
      { jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: { notifications: { taskIds: [taskId] }, _meta: meta(withTasks) } },
      { scope: { principal: 'alice' }, send: (m) => sent.push(m), signal: abort.signal },
    );
    await until(async () => sent, (s) => s.length > 0); // acknowledged: the read is under way
    const statuses: string[] = [];
    store.watch(taskId, (task) => statuses.push(task.status));
    finish(); // the task completes while the listen's read has not answered
    await until(async () => statuses, (s) => s.includes('completed'));
    release();
    await until(async () => sent.filter((m) => m.method === 'notifications/tasks'), (n) => n.length > 0);
    abort.abort();
    await listening;
    expect(sent.filter((m) => m.method === 'notifications/tasks').map((m) => m.params.status)).toEqual(['completed']);
  });

  it('a task\'s progress message becomes its statusMessage, with or without a progressToken', async () => {
    const mcp = new MiniMCP<{ principal?: string }>({ name: 't', version: '1', onError: () => {} });
    let finish = () => {};
    mcp.tool('steps', { task: 'optional' }, async (_a, ctx) => {
      await ctx.task();
      ctx.progress(1, 2, 'halfway there'); // no progressToken: the message still reaches the task
      await new Promise<void>((resolve) => (finish = resolve));
      return 'stepped';
    });
    const dispatch = async (method: string, params: Record<string, unknown>) =>
      ((await mcp.dispatch({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta(withTasks) } }, { scope: { principal: 'alice' } })).reply as any).result;
    const { taskId } = await dispatch('tools/call', { name: 'steps' });
    expect(await until(async () => (await dispatch('tasks/get', { taskId })).statusMessage, (m) => m !== undefined)).toBe('halfway there');
    finish();
    expect((await until(() => dispatch('tasks/get', { taskId }), (t) => t.status === 'completed')).result.content[0].text).toBe('stepped');
  });
});
