/**
 * The fetch floor for Bun and Deno: the runtime's own server (Bun.serve / Deno.serve), one JSON parse
 * of the JSON-RPC body, the tool's work, a canned result. No MCP at all: floor-http.mjs on a
 * Web-standard server, so each runtime's overhead reads as a ratio to its own floor.
 */
import { WORK, result } from './work.mjs';

const json = (status, body) => new Response(body, { status, headers: { 'content-type': 'application/json' } });

async function answer(request) {
  let msg;
  try {
    msg = JSON.parse(await request.text());
  } catch {
    return json(400, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
  }
  const work = WORK[msg?.params?.name];
  if (msg?.method !== 'tools/call' || !work) {
    return json(200, JSON.stringify({ jsonrpc: '2.0', id: msg?.id ?? null, error: { code: -32601, message: 'Not found' } }));
  }
  return json(200, JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: result(await work()) }));
}

const port = Number(globalThis.process?.env?.PORT ?? globalThis.Deno?.env.get('PORT') ?? 3000);
if (globalThis.Bun) globalThis.Bun.serve({ port, hostname: '127.0.0.1', fetch: answer });
else globalThis.Deno.serve({ port, hostname: '127.0.0.1', onListen() {} }, answer);
