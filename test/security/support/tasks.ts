/** 2025 task clients through the core: each its own connection and principal; tools that finish at once, with results of a chosen size. */
import { MiniMCP, type MiniMCPOptions } from '../../../src/index.js';
import type { Connection } from '../../../src/transport.js';

const CAPS = { tasks: { requests: { elicitation: { create: {} } } } };

export function taskServer(tasks: NonNullable<MiniMCPOptions['tasks']> = {}) {
  const errors: unknown[] = [];
  const mcp = new MiniMCP<{ principal: string }>({ name: 'bounds', version: '1', onError: (e) => errors.push(e), tasks });
  const stopped: string[] = [];
  mcp.tool('sized', { task: 'optional' }, (args) => 'x'.repeat(Number(args.chars ?? 1)));
  mcp.tool('wait', { task: 'optional' }, (_args, ctx) => new Promise((_resolve, reject) => {
    ctx.signal.addEventListener('abort', () => (stopped.push('wait'), reject(new Error('stopped'))));
  }));
  let n = 0;
  async function client(principal: string) {
    const connection: Connection = {};
    const call = async (method: string, params: Record<string, unknown> = {}) =>
      (await mcp.dispatch({ jsonrpc: '2.0', id: ++n, method, params }, { scope: { principal }, connection })).reply as any;
    await call('initialize', { protocolVersion: '2025-11-25', capabilities: CAPS, clientInfo: { name: principal, version: '1' } });
    /** A task of `name`; the creation reply (result.task, or an error). */
    const start = (name: string, args: Record<string, unknown> = {}, task: Record<string, unknown> = {}) => call('tools/call', { name, arguments: args, task });
    return { call, start };
  }
  return { mcp, client, errors, stopped };
}
