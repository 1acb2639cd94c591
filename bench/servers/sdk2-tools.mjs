/** The benchmark tools on an official SDK v2 McpServer; used as the per-request (HTTP) or per-connection (stdio) factory. */
import { McpServer } from '@modelcontextprotocol/server';
import { WORK, result } from './work.mjs';

export function createSdk2Server() {
  const server = new McpServer({ name: 'bench-sdk2', version: '1.0.0' }, { capabilities: { tools: {} } });
  for (const [name, work] of Object.entries(WORK)) server.registerTool(name, {}, async () => result(await work()));
  return server;
}
