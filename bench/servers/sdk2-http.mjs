/**
 * Official SDK v2: `createMcpHandler(factory)` (a server per request; 2025-era requests take its
 * stateless legacy path) mounted on node:http with `toNodeHandler` from @modelcontextprotocol/node.
 */
import { createServer } from 'node:http';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createSdk2Server } from './sdk2-tools.mjs';

const handle = toNodeHandler(createMcpHandler(createSdk2Server));
createServer((req, res) => {
  if (req.url !== '/mcp') return res.writeHead(404).end();
  void handle(req, res);
}).listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
