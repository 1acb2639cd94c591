/**
 * The fan-out floor: node:http holding `subscriptions/listen` responses open as SSE, and a
 * `fanout_touch` call that writes one `notifications/resources/updated` event to each. No MCP at all:
 * what delivering one event to N HTTP streams costs at least on this machine (a socket write each).
 * With REDIS_URL it is a cluster floor: the call publishes on a Redis channel and every process
 * writes to its own streams when the message arrives, the same path a Redis-backed member takes.
 * Prints `READY <url>`.
 */
import { createServer } from 'node:http';

const KEY = 'io.modelcontextprotocol/subscriptionId';
const streams = new Set();
const event = (message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

function deliver(uri) {
  for (const s of streams) s.res.write(event({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri, _meta: { [KEY]: s.id } } }));
}

let publish = deliver;
if (process.env.REDIS_URL) {
  const { createClient } = await import('redis');
  const channel = `${process.env.MINIMCP_REDIS_PREFIX ?? 'floor:'}floor-fanout`;
  const commands = await createClient({ url: process.env.REDIS_URL }).connect();
  const subscriber = await commands.duplicate().connect();
  await subscriber.subscribe(channel, (uri) => deliver(uri));
  publish = (uri) => void commands.publish(channel, uri);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (msg.method === 'subscriptions/listen') {
      const stream = { res, id: msg.id };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(event({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { [KEY]: msg.id }, notifications: msg.params.notifications } }));
      streams.add(stream);
      res.on('close', () => streams.delete(stream));
      return;
    }
    publish('bench://fanout');
    const body = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'ok' }] } });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`READY http://127.0.0.1:${server.address().port}/mcp`));
process.once('SIGTERM', () => process.exit(0));
