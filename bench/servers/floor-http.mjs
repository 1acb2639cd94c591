/**
 * The HTTP floor: node:http, one JSON.parse of the JSON-RPC body, the tool's work, a canned result.
 * No MCP at all: what any server on this machine pays at least.
 */
import { createServer } from 'node:http';
import { WORK, result } from './work.mjs';

const reply = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    let msg;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(res, 400, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    }
    const work = WORK[msg?.params?.name];
    if (msg?.method !== 'tools/call' || !work) {
      return reply(res, 200, JSON.stringify({ jsonrpc: '2.0', id: msg?.id ?? null, error: { code: -32601, message: 'Not found' } }));
    }
    reply(res, 200, JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: result(await work()) }));
  });
}).listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
