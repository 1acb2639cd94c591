/**
 * The package as published: dist/ built by `npm run build` (one bundled file per subpath export),
 * imported by its own name from a scratch install, serving over real HTTP and stdio.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshakeLine } from '../support/stdio-handshake.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let app: string;

const SERVER = `
import { MiniMCP, McpError } from 'minimcp';
import { serve } from 'minimcp/node';
import { serveStdio } from 'minimcp/stdio';
import { createFetchHandler } from 'minimcp/http';
const mcp = new MiniMCP({ name: 'packaged', version: '1' });
mcp.tool('double', { input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, ({ n }) => String(n * 2));
mcp.resource('memo://one', { name: 'one' }, () => ({ text: 'one' }));
if (!(new McpError(-32602, 'x') instanceof Error)) throw new Error('McpError is not an Error');
if (typeof createFetchHandler !== 'function') throw new Error('minimcp/http has no createFetchHandler');
if (process.argv[2] === 'stdio') serveStdio(mcp);
else {
  const running = await serve(mcp, { port: 0 });
  console.log(running.url);
}
`;

beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'minimcp-package-'));
  const pkg = join(app, 'node_modules', 'minimcp');
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), join(pkg, 'dist')], { stdio: 'pipe' });
  cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
  // The package's own dependency (@cfworker/json-schema), where a real install would put it.
  symlinkSync(join(root, 'node_modules', '@cfworker'), join(app, 'node_modules', '@cfworker'), 'dir');
  writeFileSync(join(app, 'server.mjs'), SERVER);
}, 120_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

const call = (id: number, name: string, args: object) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('the built package', () => {
  it('serves over HTTP: tool results, JSON Schema checks (its validator loads lazily) and protocol errors', async () => {
    const child = spawn(process.execPath, ['server.mjs'], { cwd: app, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));
      const post = async (body: object) =>
        (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) })).json();
      expect((await post(call(1, 'double', { n: 21 }))).result.content[0].text).toBe('42');
      const invalid = (await post(call(2, 'double', { n: 'x' }))).result;
      expect(invalid.isError).toBe(true);
      expect(invalid.content[0].text).toMatch(/Invalid arguments for tool 'double'/);
      const missing = await post({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'memo://two' } });
      expect(missing.error.code).toBe(-32602);
      expect(missing.error.data).toEqual({ uri: 'memo://two' });
    } finally {
      child.kill();
    }
  });

  it('serves over stdio', async () => {
    const child = spawn(process.execPath, ['server.mjs', 'stdio'], { cwd: app, stdio: ['pipe', 'pipe', 'inherit'] });
    // The first line answers the handshake (initialize); the second the call.
    const line = new Promise<string>((resolve) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += String(d);
        const lines = out.split('\n');
        if (lines.length > 2) resolve(lines[1]!);
      });
    });
    child.stdin.end(`${handshakeLine}${JSON.stringify(call(1, 'double', { n: 4 }))}\n`);
    expect(JSON.parse(await line).result.content[0].text).toBe('8');
  });
});
