/**
 * Issue 36: an upstream tool that may run as a task (`execution.taskSupport`) runs as a task of the
 * gateway for a client that takes tasks (2026 tasks extension): a creation result at once, then
 * tasks/get with the upstream's answer inlined. The upstream sees one plain call.
 */
import { afterAll, expect, it } from 'vitest';
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
