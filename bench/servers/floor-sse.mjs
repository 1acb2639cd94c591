/**
 * The SSE floor: node:http, one JSON.parse of the JSON-RPC body, the tool's work, and the answer as an
 * event stream: the progress notification the request asked for (its progressToken), then the
 * result, two `data:` events in one body with a length, written once. No MCP, no event ids, no
 * resumability, no header beyond the content type: what answering this request as SSE costs at least.
 * Tools are named like MiniMCP's SSE tools (`noop_sse`: the workload, then `_sse`).
 */
import { createServer } from 'node:http';
import { WORK, result } from './work.mjs';

const reply = (res, status, type, body) => {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
};
const event = (message) => `data: ${JSON.stringify(message)}\n\n`;

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    let msg;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(res, 400, 'application/json', '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    }
    const name = String(msg?.params?.name);
    const sse = name.endsWith('_sse');
    const work = WORK[sse ? name.slice(0, -4) : name];
    if (msg?.method !== 'tools/call' || !work) {
      return reply(res, 200, 'application/json', JSON.stringify({ jsonrpc: '2.0', id: msg?.id ?? null, error: { code: -32601, message: 'Not found' } }));
    }
    // Without a progressToken (the bench's start-up probe) there is no progress to send: plain JSON.
    const progressToken = msg.params._meta?.progressToken;
    if (!sse || progressToken === undefined) return reply(res, 200, 'application/json', JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: result(await work()) }));
    const progress = event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: 1 } });
    const text = await work();
    reply(res, 200, 'text/event-stream', progress + event({ jsonrpc: '2.0', id: msg.id, result: result(text) }));
  });
}).listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
