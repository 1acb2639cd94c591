/**
 * Memory attacks from issue 12 against scripts/security/rss-server.ts, one principal (bob):
 *   node scripts/security/rss-attack.mjs listen   50 subscriptions/listen streams with 3.9 MiB filters
 *   node scripts/security/rss-attack.mjs uploads  150 connections each holding a 4 MiB upload open
 *   node scripts/security/rss-attack.mjs subscribe  120 resources/subscribe of 3.9 MiB URIs on one 2025 session (issue 24)
 *   node scripts/security/rss-attack.mjs tasks      300 2025 tasks each finishing with a 3.9 MiB result (issue 24)
 *   node scripts/security/rss-attack.mjs replay     200 2025 calls whose closed stream keeps a 3.9 MiB reply (issue 24)
 * Prints the server's RSS before, its peak (VmHWM) during the attack, and how the server answered.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';

const mode = process.argv[2] ?? 'listen';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mib = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
const status = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', new URL('./rss-server.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
const { url, pid } = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(JSON.parse(String(d)))));
await sleep(500);
const before = status(pid, 'VmRSS');
const auth = { authorization: 'Bearer token-bob', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const outcomes = {};
const count = (key) => (outcomes[key] = (outcomes[key] ?? 0) + 1);

if (mode === 'listen') {
  // ~3.9 MiB of short URIs per filter.
  const uris = Array.from({ length: 232_000 }, (_, i) => `test://r/${i}`);
  const body = JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'subscriptions/listen',
    params: { notifications: { resourceSubscriptions: uris }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
  });
  console.log(`filter body: ${(body.length / 1048576).toFixed(2)} MiB`);
  const headers = { ...auth, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' };
  await Promise.all(Array.from({ length: 50 }, () => new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      count(res.statusCode);
      res.once('data', () => resolve());
      res.once('end', resolve);
    });
    req.on('error', () => { count('error'); resolve(); });
    req.end(body);
  })));
  await sleep(2000);
} else if (mode === 'subscribe' || mode === 'tasks' || mode === 'replay') {
  await legacyAttack(mode);
} else {
  const { hostname, port } = new URL(url);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const sockets = [];
  await Promise.all(Array.from({ length: 150 }, () => new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, async () => {
      socket.write(`POST /mcp HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer token-bob\r\ncontent-type: application/json\r\naccept: application/json\r\ncontent-length: ${4 * 1048576}\r\n\r\n`);
      for (let sent = 0; sent < 4 * 1048576 - chunk.length; sent += chunk.length) {
        if (socket.destroyed) break;
        if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r).once('close', r));
      }
      resolve(); // the last 64 KiB is never sent: the server holds the rest
    });
    socket.on('data', (d) => count(String(d).split(' ')[1]));
    socket.on('error', () => {});
    sockets.push(socket);
  })));
  await sleep(2000);
  for (const s of sockets) s.destroy();
}
const peak = status(pid, 'VmHWM');
process.kill(pid, 'SIGUSR2'); // a full GC in the server: rssHeld is what it keeps, not garbage not yet collected
await sleep(500);
console.log(JSON.stringify({ mode, rssBefore: mib(before), peakRss: mib(peak), rssHeld: mib(status(pid, 'VmRSS')), answers: outcomes }));
child.kill('SIGKILL');
process.exit(0);

/** Sequential 2025 requests on one session: what the server keeps grows with each accepted one. */
async function legacyAttack(kind) {
  const headers = { ...auth, 'mcp-protocol-version': '2025-11-25' };
  const init = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '1' } } }) });
  headers['mcp-session-id'] = init.headers.get('mcp-session-id');
  await init.text();
  const big = 'x'.repeat(Math.floor(3.9 * 1048576));
  for (let i = 0; i < { subscribe: 120, tasks: 300, replay: 200 }[kind]; i++) {
    const params = kind === 'subscribe' ? { uri: `test://${i}/${big}` }
      : kind === 'tasks' ? { name: 'big', arguments: {}, task: { ttl: 86_400_000 } }
      : { name: 'closed', arguments: {} };
    const method = kind === 'subscribe' ? 'resources/subscribe' : 'tools/call';
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: i + 1, method, params }) });
    const text = await response.text();
    const code = /"code":(-?\d+)/.exec(text)?.[1];
    count(code === undefined ? response.status : `error ${code}`);
  }
  await sleep(kind === 'tasks' ? 3000 : 500); // the tasks finish in the background
}
