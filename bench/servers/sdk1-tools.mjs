/** The benchmark tools on an official SDK v1 McpServer (no input schema: zero-argument tools). */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WORK, result } from './work.mjs';

export function createSdk1Server() {
  const server = new McpServer({ name: 'bench-sdk1', version: '1.0.0' });
  for (const [name, work] of Object.entries(WORK)) server.registerTool(name, {}, async () => result(await work()));
  return server;
}
