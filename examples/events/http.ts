/**
 * The events example over Streamable HTTP: `PORT=N npm run -s start:events` serves
 * http://127.0.0.1:N/mcp (3000 by default), both eras. Any `Authorization: Bearer <token>` is
 * accepted and each token is its own principal (a stand-in for minimcp/auth); without one, webhook
 * subscriptions are refused. EVENTS_HEARTBEAT_MS sets the push heartbeat; REDIS_URL with
 * MINIMCP_SECRET joins instances into one cluster; EVENTS_ALLOW_LOOPBACK=1 lets callbacks use
 * http://127.0.0.1 (development only).
 */
import { serve } from '../../src/transports/http/node.js';
import { clusterOptions } from '../cluster.js';
import { bearerScope, createIncidentServer } from './server.js';
import { exampleWebhooks } from './webhooks.js';

const port = Number(process.env.PORT ?? 3000);
const heartbeat = process.env.EVENTS_HEARTBEAT_MS;
const webhooks = await exampleWebhooks(process.env.EVENTS_ALLOW_LOOPBACK === '1');
const mcp = createIncidentServer(await clusterOptions(), { ...(heartbeat ? { heartbeatMs: Number(heartbeat) } : {}), webhooks });

const { url, close } = await serve(mcp, { port, host: '127.0.0.1', scope: bearerScope });
console.log(`MiniMCP events example listening on ${url}`);
console.log('Poll (2026-07-28, one request each):');
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`;
const curl = (method: string, body: string, name = '') =>
  `curl -sN ${url} -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: ${method}'${name ? ` -H 'Mcp-Name: ${name}'` : ''} -d '${body}'`;
console.log(`  ${curl('events/poll', `{"jsonrpc":"2.0","id":1,"method":"events/poll","params":{"name":"incident.created","arguments":{},"cursor":null,${meta}}}`)}`);
console.log('Push (a stream; raise an incident from another terminal):');
console.log(`  ${curl('events/stream', `{"jsonrpc":"2.0","id":2,"method":"events/stream","params":{"name":"incident.created","arguments":{},${meta}}}`)}`);
console.log(`  ${curl('tools/call', `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"raise_incident","arguments":{"service":"db","severity":"high"},${meta}}}`, 'raise_incident')}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void close().then(() => process.exit(0)));
}
