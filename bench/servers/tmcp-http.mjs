/** tmcp with @tmcp/transport-http behind @hono/node-server's fetch adapter on node:http. */
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { HttpTransport } from '@tmcp/transport-http';
import { createTmcpServer } from './tmcp-tools.mjs';

const transport = new HttpTransport(createTmcpServer(), { path: '/mcp' });
createServer(getRequestListener(async (request) => (await transport.respond(request)) ?? new Response(null, { status: 404 })))
  .listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
