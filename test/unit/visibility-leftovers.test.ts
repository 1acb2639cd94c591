/**
 * Two places hidden primitives used to show through: the `completions` capability (advertised when the
 * only completers belonged to primitives the caller may not see) and 2025 resource subscriptions (a
 * subscriber to a hidden URI received its `notifications/resources/updated`).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MiniMCP, type Connection } from '../../src/index.js';
import { serveStdio } from '../../src/transports/stdio.js';

interface Scope {
  role: 'admin' | 'guest';
}
const isAdmin = ({ scope }: { scope: Scope }) => scope?.role === 'admin';
const req = (method: string, params: Record<string, unknown>, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const V26 = '2026-07-28';
const modernMeta = { 'io.modelcontextprotocol/protocolVersion': V26, 'io.modelcontextprotocol/clientCapabilities': {} };
const initialize = (id: number | string = 0) => req('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, id);

function server(publicCompleter: boolean) {
  const mcp = new MiniMCP<Scope>({ name: 'hidden', version: '1.0.0', onError: () => {} });
  mcp.prompt('audit', { visible: isAdmin, arguments: [{ name: 'user', required: true }], complete: { user: () => ['root'] } }, () => 'audit');
  mcp.resourceTemplate('admin://{+path}', { visible: isAdmin, complete: { path: () => ['etc'] } }, () => 'admin');
  mcp.resource('docs://secret', { visible: isAdmin }, () => 'secret');
  mcp.resource('docs://public', {}, () => 'public');
  if (publicCompleter) mcp.prompt('hello', { arguments: [{ name: 'who' }], complete: { who: () => ['you'] } }, () => 'hi');
  return mcp;
}

async function capabilities(mcp: MiniMCP<Scope>, role: Scope['role']) {
  const legacy = (await mcp.handle(initialize(), { scope: { role }, connection: {} })) as any;
  const modern = (await mcp.handle(req('server/discover', { _meta: modernMeta }), { scope: { role } })) as any;
  return [legacy.result.capabilities.completions, modern.result.capabilities.completions];
}

describe('the completions capability', () => {
  it('is advertised only to a caller who may see a completer (2025 initialize and 2026 server/discover)', async () => {
    const mcp = server(false);
    expect(await capabilities(mcp, 'guest')).toEqual([undefined, undefined]);
    expect(await capabilities(mcp, 'admin')).toEqual([{}, {}]);
  });

  it('stays advertised to everyone when a visible primitive completes', async () => {
    expect(await capabilities(server(true), 'guest')).toEqual([{}, {}]);
  });
});

/** A 2025 stdio client with the given role, subscribed to `uris`; returns the notifications it hears. */
async function subscriber(mcp: MiniMCP<Scope>, role: Scope['role'], uris: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  const heard: any[] = [];
  output.on('data', (chunk: Buffer) => heard.push(...chunk.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))));
  serveStdio(mcp, { input, output, exitOnEnd: false, guardStdout: false, scope: { role } });
  input.write(`${JSON.stringify(initialize())}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  for (const [i, uri] of uris.entries()) input.write(`${JSON.stringify(req('resources/subscribe', { uri }, `s${i}`))}\n`);
  while (heard.length < 1 + uris.length) await sleep(2);
  return { heard, close: () => input.end() };
}

describe('2025 resource subscriptions', () => {
  it('a subscriber to a hidden URI (resource or template) gets the unknown-URI answer and no updates', async () => {
    const mcp = server(false);
    const uris = ['docs://secret', 'admin://etc/passwd', 'docs://public', 'docs://unknown'];
    const guest = await subscriber(mcp, 'guest', uris);
    const admin = await subscriber(mcp, 'admin', uris);
    // Every subscription is answered alike: the guest cannot tell hidden from unknown.
    expect(guest.heard.slice(1)).toEqual(uris.map((_u, i) => ({ jsonrpc: '2.0', id: `s${i}`, result: {} })));
    for (const uri of uris) mcp.notifyResourceUpdated(uri);
    await sleep(20);
    const updates = (heard: any[]) => heard.filter((m) => m.method === 'notifications/resources/updated').map((m) => m.params.uri);
    expect(updates(guest.heard)).toEqual(['docs://public', 'docs://unknown']);
    expect(updates(admin.heard)).toEqual(uris);
    guest.close();
    admin.close();
  });

  it('the session never records a hidden subscription (what the HTTP GET stream reads)', async () => {
    const mcp = server(false);
    const connection: Connection = {};
    await mcp.handle(initialize(), { scope: { role: 'guest' }, connection });
    await mcp.handle(req('resources/subscribe', { uri: 'docs://secret' }, 2), { scope: { role: 'guest' }, connection });
    await mcp.handle(req('resources/subscribe', { uri: 'docs://public' }, 3), { scope: { role: 'guest' }, connection });
    expect([...(connection.subscriptions ?? [])]).toEqual(['docs://public']);
  });
});
