/**
 * mcp-lite (stateless: no session adapter) behind @hono/node-server's fetch adapter on node:http.
 * mcp-lite 0.10 serves protocol 2025-06-18 at most, so its requests carry that header (see targets.mjs).
 */
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { McpServer, StreamableHttpTransport } from 'mcp-lite';
import { WORK, result } from './work.mjs';

const mcp = new McpServer({ name: 'bench-mcp-lite', version: '1.0.0' });
for (const [name, work] of Object.entries(WORK)) mcp.tool(name, { handler: async () => result(await work()) });
const handle = new StreamableHttpTransport().bind(mcp);

createServer(getRequestListener((request) => handle(request)))
  .listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
