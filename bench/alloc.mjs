#!/usr/bin/env node
/**
 * `node bench/alloc.mjs`: bytes V8 allocates per `tools/call` on each path, in process, on the built
 * dist/ (run `npm run build` first). Each path runs in a child process started with --trace-gc-nvp:
 * every GC line says how much was allocated since the one before, and the sum over a measured window
 * divided by the calls in it is the allocation per request (what makes the young generation grow).
 * Paths: the core alone (`mcp.handle()` on a string), the fetch handler answering JSON, and the fetch
 * handler answering SSE (one progress, then the result). Issue 28 measures before it cuts.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PATHS = ['core', 'json', 'sse'];
const N = Number(process.env.ALLOC_CALLS ?? 50_000);

/** The child: serves N calls on one path and prints markers around the measured window. */
const child = `
const { MiniMCP } = await import(${JSON.stringify(`${root}dist/index.js`)});
const { createFetchHandler } = await import(${JSON.stringify(`${root}dist/transports/http/index.js`)});
const path = process.argv[1]; const N = Number(process.argv[2]);
const mcp = new MiniMCP({ name: 'alloc', version: '1' });
mcp.tool('noop', { description: 'x' }, () => 'ok');
mcp.tool('noop_sse', { description: 'x' }, async (_a, ctx) => { await ctx.progress(1, 2); return 'ok'; });
const handler = createFetchHandler(mcp, {});
const body = (name) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: { progressToken: 1 } } });
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: '127.0.0.1', 'mcp-protocol-version': '2025-11-25' };
const one = {
  core: async () => { await mcp.handle(body('noop')); },
  json: async () => { await (await handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...headers, accept: 'application/json' }, body: body('noop') }))).text(); },
  sse: async () => { await (await handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: body('noop_sse') }))).text(); },
}[path];
for (let i = 0; i < 5000; i++) await one();
console.log('MARK start');
for (let i = 0; i < N; i++) await one();
console.log('MARK end');
`;

const rows = [];
for (const path of PATHS) {
  const run = spawnSync(process.execPath, ['--trace-gc-nvp', '--input-type=module', '-e', child, path, String(N)], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const lines = run.stdout.split('\n');
  const from = lines.indexOf('MARK start');
  const to = lines.indexOf('MARK end');
  if (from < 0 || to < 0) throw new Error(`${path}: the child failed: ${run.stderr.slice(-500)}`);
  let bytes = 0;
  for (const line of lines.slice(from + 1, to)) bytes += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
  rows.push({ path, calls: N, bytesPerCall: Math.round(bytes / N) });
}
console.log('| path | calls | bytes allocated per call |\n|---|---:|---:|');
for (const r of rows) console.log(`| ${r.path} | ${r.calls} | ${r.bytesPerCall} |`);
