/** Node (any version): the apps on node:http through createNodeHandler. Prints its base URL. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler } from 'minimcp/node';
import { createApps, createAuthApp } from './apps.js';

const handlers = new Map(Object.entries(createApps()).map(([path, mcp]) => [path, createNodeHandler(mcp)]));
const { mcp, auth } = createAuthApp();
handlers.set('/auth', createNodeHandler(mcp, { auth }));
const server = createServer((req, res) => {
  const handler = handlers.get((req.url ?? '/').split('?')[0]!);
  if (handler) return handler(req, res);
  res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
