/**
 * Issue 36: an upstream tool that may run as a task (`execution.taskSupport`) runs as a task of the
 * gateway for a client that takes tasks (2026 tasks extension): a creation result at once, then
 * tasks/get with the upstream's answer inlined. The upstream sees one plain call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Proxied } from '../../src/gateway/index.js';
import { MiniMCP } from '../../src/index.js';

const FIXTURE = ['--import', 'tsx', new URL('./servers/pid-stdio.ts', import.meta.url).pathname];
const EXT = 'io.modelcontextprotocol/tasks';
const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } };
let proxied: Proxied | undefined;
afterAll(async () => {
  await proxied?.close();
});

it("an upstream task tool is a gateway task: created at once, then completed with the upstream's result", async () => {
  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {} });
  proxied = await mcp.proxy({ stdio: [process.execPath, ...FIXTURE], log: () => {} });
  let id = 0;
  const call = async (method: string, params: object) =>
    ((await mcp.handle({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta } })) as { result: Record<string, unknown> }).result;
  expect((mcp.tools.list().find((t) => t.name === 'slow') as { execution?: unknown }).execution).toEqual({ taskSupport: 'optional' });
  const created = await call('tools/call', { name: 'slow', arguments: {} });
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  await expect.poll(async () => (await call('tasks/get', { taskId: created.taskId })).status, { timeout: 10_000 }).toBe('completed');
  expect((await call('tasks/get', { taskId: created.taskId })).result).toMatchObject({ content: [{ type: 'text', text: 'slow done' }] });
}, 30_000);

describe('an upstream that runs the call as a task of its own (the caller declared the tasks extension)', () => {
  const asking = { ..._meta, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [EXT]: {} } } };
  let upstreamTasks: Proxied | undefined;
  let mcp: MiniMCP;
  let id = 0;
  const call = async (method: string, params: object) =>
    ((await mcp.handle({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: asking } })) as { result: Record<string, unknown> }).result;
  const task = (taskId: unknown) => call('tasks/get', { taskId });
  const settled = async (taskId: unknown, status: string) => {
    await expect.poll(async () => (await task(taskId)).status, { timeout: 10_000, interval: 50 }).toBe(status);
    return task(taskId);
  };
  beforeAll(async () => {
    mcp = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {} });
    upstreamTasks = await mcp.proxy({ stdio: [process.execPath, ...FIXTURE], era: 'stateless', log: () => {} });
  }, 30_000);
  afterAll(async () => {
    await upstreamTasks?.close();
  });

  it("ends as the upstream task ends: a tool error is completed with isError", async () => {
    const created = await call('tools/call', { name: 'task_tool_error', arguments: {} });
    const done = await settled(created.taskId, 'completed');
    expect(done.result).toMatchObject({ isError: true, content: [{ type: 'text' }] });
  }, 30_000);

  it("a protocol error is failed with the upstream's error inlined, no result", async () => {
    const created = await call('tools/call', { name: 'task_protocol_error', arguments: {} });
    const done = await settled(created.taskId, 'failed');
    expect(done.error).toMatchObject({ code: -32603, message: expect.stringContaining('simulated protocol failure') });
    expect(done.result).toBeUndefined();
  }, 30_000);

  it("the upstream task's questions are the gateway task's, under its keys, answered one at a time", async () => {
    const created = await call('tools/call', { name: 'task_two_questions', arguments: {} });
    await expect.poll(async () => Object.keys(((await task(created.taskId)).inputRequests ?? {}) as object).sort(), { timeout: 10_000, interval: 50 }).toEqual(['first', 'second']);
    const answer = (name: string) => ({ action: 'accept', content: { name } });
    await call('tasks/update', { taskId: created.taskId, inputResponses: { first: answer('ann') } });
    const waiting = await task(created.taskId);
    expect(waiting.status).toBe('input_required');
    expect(Object.keys(waiting.inputRequests as object)).toEqual(['second']);
    await call('tasks/update', { taskId: created.taskId, inputResponses: { second: answer('bob') } });
    const done = await settled(created.taskId, 'completed');
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'first=ann, second=bob' }] });
  }, 30_000);

  it('an MRTR round before the upstream makes its task stays a plain round; the task comes on the final round', async () => {
    const first = await call('tools/call', { name: 'task_after_question', arguments: {} });
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { name: { method: 'elicitation/create' } } });
    expect(first.taskId).toBeUndefined();
    const inputResponses = { name: { action: 'accept', content: { name: 'ann' } } };
    const created = await call('tools/call', { name: 'task_after_question', arguments: {}, inputResponses, requestState: first.requestState });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const done = await settled(created.taskId, 'completed');
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'hello ann' }] });
  }, 30_000);

  it("cancelling the gateway's task cancels the upstream's", async () => {
    const created = await call('tools/call', { name: 'task_until_cancelled', arguments: {} });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    await call('tasks/cancel', { taskId: created.taskId });
    const count = async () => ((await call('tools/call', { name: 'cancelled_tasks', arguments: {} })).content as { text: string }[])[0]!.text;
    await expect.poll(count, { timeout: 10_000, interval: 100 }).toBe('1');
  }, 30_000);
});
