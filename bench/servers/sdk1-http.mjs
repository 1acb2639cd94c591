/**
 * Official SDK v1, stateless Streamable HTTP as its docs show: a new server and transport per
 * request, `sessionIdGenerator: undefined`, JSON responses; plain node:http in front.
 */
import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createSdk1Server } from './sdk1-tools.mjs';

createServer(async (req, res) => {
  if (req.url !== '/mcp') return res.writeHead(404).end();
  const server = createSdk1Server();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch {
    if (!res.headersSent) res.writeHead(500).end();
  }
}).listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
