/** The benchmark tools on a tmcp McpServer (no schema adapter: zero-argument tools need none). */
import { McpServer } from 'tmcp';
import { WORK, result } from './work.mjs';

export function createTmcpServer() {
  const server = new McpServer({ name: 'bench-tmcp', version: '1.0.0', description: 'bench' }, { adapter: undefined, capabilities: { tools: {} } });
  for (const [name, work] of Object.entries(WORK)) server.tool({ name, description: name }, async () => result(await work()));
  return server;
}
