/**
 * Issue 24 (found by the cluster soak): in memory, a 2026 call whose handler asks `ctx.task()` past
 * `tasks.maxPerPrincipal` was answered with a task-creation result for a task that was never stored
 * (`tasks/get` on its id: "Unknown task"). The refusal must be the answer: -32602 naming the bound.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};
const call = (id: number, name: string, params: object = {}) => ({ jsonrpc: '2.0', id, method: name, params: { ...params, _meta: META } });

describe('a task refused at ctx.task() is answered as refused', () => {
  it('past maxPerPrincipal: -32602 naming the bound, and every task id answered is a stored one', async () => {
    const mcp = new MiniMCP({ name: 'refusal', version: '1', onError: () => {}, tasks: { maxPerPrincipal: 2 } });
    mcp.tool('slow', { task: 'optional' }, async (_args, ctx) => {
      await ctx.task();
      await new Promise((resolve) => setTimeout(resolve, 50));
      return 'done';
    });
    const replies = [];
    for (let i = 1; i <= 3; i++) replies.push((await mcp.handle(call(i, 'tools/call', { name: 'slow', arguments: {} }))) as any);
    expect(replies[0].result.resultType).toBe('task');
    expect(replies[1].result.resultType).toBe('task');
    expect(replies[2].error).toMatchObject({ code: -32602, data: { bound: 'maxPerPrincipal' } });
    for (const reply of replies.slice(0, 2)) {
      const got = (await mcp.handle(call(10, 'tasks/get', { taskId: reply.result.taskId }))) as any;
      expect(got.result.taskId).toBe(reply.result.taskId);
    }
  });
});
