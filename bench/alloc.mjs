#!/usr/bin/env node
/**
 * `node bench/alloc.mjs [--sites] [--top=N] [--calls=N] [--only=stdio,node-sse] [--root=DIR]`: bytes allocated per
 * `tools/call` on each path, on the built dist/ (run `npm run build` first), and with --sites what
 * they are for (the --top=N largest sites, 12 by default). Each path's server runs in its own process under V8's sampling heap profiler, which
 * here also keeps the samples of objects that died (so it counts what was allocated, not what is
 * left); the load comes from this process over real pipes and sockets, so the client's own
 * allocations are not counted. The in-process paths (core, fetch) drive themselves: what building
 * a Request costs belongs to those paths.
 * Paths: core (`mcp.handle()` on a string), stdio (`serveStdio`, 64 requests in flight), node JSON
 * and node SSE (`serve()` from minimcp/node: the JSON answer, and one progress then the result),
 * fetch JSON and fetch SSE (`createFetchHandler`).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Connection, postBytes } from './load/http-client.mjs';
import { callBody } from './load/validate.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => [a.replace(/^--/, '').split('=')[0], a.split('=')[1] ?? true]));
// --root=DIR measures another checkout's dist/ (a before and after in one sitting).
const root = typeof args.root === 'string' ? `${args.root.replace(/\/$/, '')}/` : fileURLToPath(new URL('..', import.meta.url));
const CALLS = Number(args.calls ?? 20_000);
const PATHS = ['core', 'stdio', 'node-json', 'node-sse', 'fetch-json', 'fetch-sse'].filter((p) => !args.only || String(args.only).split(',').includes(p));

/** The server side: one path, measured between 'start' and 'stop' messages from the parent. */
async function child(path) {
  const { Session } = await import('node:inspector/promises');
  const { MiniMCP } = await import(`${root}dist/index.js`);
  const mcp = new MiniMCP({ name: 'alloc', version: '1', maxConcurrency: 1024 });
  mcp.tool('noop', {}, () => 'ok');
  mcp.tool('noop_sse', {}, (_args, ctx) => {
    ctx.progress(1);
    return 'ok';
  });
  const session = new Session();
  session.connect();
  const measure = {
    start: () => session.post('HeapProfiler.startSampling', { samplingInterval: 128, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }),
    stop: async () => (await session.post('HeapProfiler.stopSampling')).profile,
  };
  if (path === 'core' || path.startsWith('fetch')) return selfDriven(path, mcp, measure);
  if (path === 'stdio') {
    const { serveStdio } = await import(`${root}dist/transports/stdio.js`);
    serveStdio(mcp, { exitOnEnd: false });
  } else {
    const { serve } = await import(`${root}dist/transports/http/node.js`);
    const running = await serve(mcp, { port: 0, host: '127.0.0.1', path: '/mcp' });
    process.send({ port: Number(new URL(running.url).port) });
  }
  process.on('message', async (message) => {
    if (message === 'start') await measure.start(), process.send('started');
    if (message === 'stop') process.send({ profile: await measure.stop() }, () => process.exit(0));
  });
  if (path === 'stdio') process.send({ ready: true });
}

/** core and fetch: the child calls itself, warm-up first. */
async function selfDriven(path, mcp, measure) {
  const { createFetchHandler } = await import(`${root}dist/transports/http/index.js`);
  const handler = createFetchHandler(mcp, {});
  const sse = path === 'fetch-sse';
  const body = callBody(1, sse ? 'noop_sse' : 'noop', sse);
  const headers = { 'content-type': 'application/json', accept: sse ? 'application/json, text/event-stream' : 'application/json', host: '127.0.0.1', 'mcp-protocol-version': '2025-11-25' };
  const one = path === 'core'
    ? async () => void (await mcp.handle(body))
    : async () => void (await (await handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body }))).text());
  for (let i = 0; i < 3_000; i++) await one();
  await measure.start();
  for (let i = 0; i < CALLS; i++) await one();
  process.send({ profile: await measure.stop() }, () => process.exit(0)); // exit once the message is out
}

/** Drives a stdio child over its pipes: 64 requests in flight, written as a batch after each batch of replies. */
function driveStdio(proc, calls) {
  return new Promise((resolve) => {
    let sent = 0;
    let answered = 0;
    let rest = '';
    const batch = () => {
      let out = '';
      for (let i = 0; i < 64 && sent < calls; i++) out += `${callBody(++sent, 'noop', false)}\n`;
      if (out) proc.stdin.write(out);
    };
    const onData = (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      answered += lines.filter((line) => line.includes('"result"') && !line.includes('"id":0,')).length;
      if (answered >= calls) return proc.stdout.off('data', onData), resolve();
      if (answered === sent) batch();
    };
    proc.stdout.setEncoding('utf8').on('data', onData);
    batch();
  });
}

/** Drives an HTTP child: 16 keep-alive connections, one call in flight each. */
async function driveHttp(port, tool, calls) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  let left = calls;
  const loop = (conn) => new Promise((resolve) => {
    const next = () => {
      if (left-- <= 0) return resolve();
      conn.send(postBytes('127.0.0.1', port, '/mcp', headers, callBody(left + 1, tool, tool.endsWith('_sse'))), (error) => (error ? resolve() : next()));
    };
    next();
  });
  const conns = Array.from({ length: 16 }, () => new Connection('127.0.0.1', port));
  await Promise.all(conns.map(loop));
  for (const conn of conns) conn.close();
}

async function measurePath(path) {
  const proc = fork(fileURLToPath(import.meta.url), ['--child', path, `--root=${root}`, `--calls=${CALLS}`], { stdio: ['pipe', 'pipe', 'inherit', 'ipc'] });
  const message = (match) => new Promise((resolve) => proc.on('message', function on(m) {
    if (match(m)) proc.off('message', on), resolve(m);
  }));
  const profile = message((m) => m?.profile !== undefined);
  if (path === 'stdio' || path.startsWith('node')) {
    const ready = await message((m) => m?.ready || m?.port);
    // A stdio stream is a 2025 connection: it answers calls once initialized.
    if (path === 'stdio') proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'alloc', version: '1' } } })}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`);
    const drive = (calls) => (path === 'stdio' ? driveStdio(proc, calls) : driveHttp(ready.port, path === 'node-sse' ? 'noop_sse' : 'noop', calls));
    await drive(3_000);
    proc.send('start');
    await message((m) => m === 'started');
    await drive(CALLS);
    proc.send('stop');
  }
  return summarize((await profile).profile);
}

/** Bytes per call in all, and by site: the innermost MiniMCP frame (or the path's own) and the allocating function. */
function summarize(profile) {
  const sites = new Map();
  let total = 0;
  const name = (f) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/dist\//, 'dist/').replace(/^.*\//, '')}`.trim();
  const walk = (node, ours) => {
    const here = node.callFrame.url.includes('/dist/') ? name(node.callFrame) : ours;
    if (node.selfSize) {
      total += node.selfSize;
      const key = here === name(node.callFrame) ? here : `${here ?? '(no MiniMCP frame)'} → ${name(node.callFrame)}`;
      sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
    }
    for (const c of node.children) walk(c, here);
  };
  walk(profile.head, undefined);
  return { bytesPerCall: Math.round(total / CALLS), sites: [...sites].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top ?? 12)).map(([site, bytes]) => [site, Math.round(bytes / CALLS)]) };
}

if (args.child) {
  await child(process.argv[process.argv.indexOf('--child') + 1]);
} else {
  const rows = [];
  for (const path of PATHS) rows.push({ path, ...(await measurePath(path)) });
  console.log(`| path | bytes allocated per call (${CALLS.toLocaleString('en')} calls, sampled) |\n|---|---:|`);
  for (const r of rows) console.log(`| ${r.path} | ${r.bytesPerCall.toLocaleString('en')} |`);
  if (args.sites) {
    for (const r of rows) {
      console.log(`\n${r.path}: the largest sites (innermost MiniMCP frame → allocating function), bytes per call`);
      for (const [site, bytes] of r.sites) console.log(`  ${String(bytes).padStart(6)}  ${site}`);
    }
  }
}
