#!/usr/bin/env node
/**
 * `node bench/gateway.mjs` (after `npm run build`): what the gateway adds per proxied `tools/call`.
 * The bench process is the client; the upstream (a MiniMCP `noop` tool, bench/servers/gateway-upstream.mjs)
 * runs in a child, over stdio or HTTP. Two paths per transport, sequential calls (concurrency 1):
 *   direct   the bench process speaks to the upstream itself (a minimal client: one line, or one fetch)
 *   gateway  the bench process hosts a MiniMCP gateway (mcp.proxy) and calls mcp.handle(tools/call)
 * Reported: latency p50/p99 per call, and the bench process's CPU per call (user+system, µs); the
 * gateway's cost is the difference of the two paths. --calls=N (default 3000), --warmup=N (default 300).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { MiniMCP } from '../dist/index.js';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const CALLS = arg('calls', 3000);
const WARMUP = arg('warmup', 300);
const UPSTREAM = new URL('./servers/gateway-upstream.mjs', import.meta.url).pathname;
const CALL = { name: 'noop', arguments: {} };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** Runs `call` WARMUP + CALLS times, one after the other; latencies and CPU of the measured calls. */
async function measure(call) {
  for (let i = 0; i < WARMUP; i++) await call(i);
  const latencies = new Float64Array(CALLS);
  const cpu = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await call(i);
    latencies[i] = performance.now() - t0;
  }
  const used = process.cpuUsage(cpu);
  latencies.sort();
  const at = (q) => latencies[Math.min(CALLS - 1, Math.floor(q * CALLS))] * 1000;
  return { p50: at(0.5), p99: at(0.99), cpu: (used.user + used.system) / CALLS };
}

/** A minimal stdio client: one JSON line out, the matching line back (one call in flight at a time). */
async function directStdio() {
  const child = spawn(process.execPath, [UPSTREAM], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  let waiting;
  lines.on('line', (line) => waiting?.(line));
  const ask = (message) => new Promise((resolve) => {
    waiting = resolve;
    child.stdin.write(`${JSON.stringify(message)}\n`);
  });
  await ask({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const result = await measure((i) => ask({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: CALL }).then(JSON.parse));
  child.kill();
  return result;
}

async function httpUpstream() {
  const child = spawn(process.execPath, [UPSTREAM], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = await once(child.stdout, 'data');
  return { child, url: String(chunk).trim() };
}

async function directHttp() {
  const { url } = http;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'noop' };
  const result = await measure(async (i) => {
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { ...CALL, _meta: META } }) });
    return response.json();
  });
  return result;
}

/** The gateway in this process, in front of `upstream`; calls go through mcp.handle (no transport of its own). */
async function viaGateway(upstream) {
  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0' });
  const proxied = await mcp.proxy(upstream);
  const result = await measure((i) => mcp.handle({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { ...CALL, _meta: META } }));
  await proxied.close();
  return result;
}

/** An upstream answered in process: what is left is the gateway's own work (mirror entry, forward, hooks). */
const inProcessUpstream = {
  name: 'in-process',
  capabilities: { tools: {} },
  start: async () => {},
  request: async (method) => (method === 'tools/list' ? { tools: [{ name: 'noop', inputSchema: { type: 'object' } }] } : { content: [{ type: 'text', text: 'ok' }] }),
  listen: () => () => {},
  close: async () => {},
};

async function localTool() {
  const mcp = new MiniMCP({ name: 'local', version: '1.0.0' });
  mcp.tool('noop', {}, async () => 'ok');
  return measure((i) => mcp.handle({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { ...CALL, _meta: META } }));
}

const ROUNDS = arg('rounds', 2);
const rows = [];
const row = (name, round, r) => rows.push(`| ${name} | ${round} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${r.cpu.toFixed(0)} |`);
// Rounds alternate the paths, so neither always runs first (a colder JIT, a colder fetch).
const http = await httpUpstream();
for (let round = 1; round <= ROUNDS; round++) {
  row('in process, a local async tool', round, await localTool());
  row('in process, proxied to an in-process upstream', round, await viaGateway(inProcessUpstream));
  row('stdio, direct', round, await directStdio());
  row('stdio, through the gateway', round, await viaGateway({ stdio: [process.execPath, UPSTREAM], log: () => {} }));
  row('HTTP, direct', round, await directHttp());
  row('HTTP, through the gateway', round, await viaGateway({ url: http.url, log: () => {} }));
}
http.child.kill();
console.log(`${CALLS} sequential tools/call (noop) after ${WARMUP} warm-up; latency in µs; CPU of the bench process per call in µs\n`);
console.log('| path | round | p50 µs | p99 µs | CPU µs/call |\n|---|---|---|---|---|');
console.log(rows.join('\n'));
