/** The `npm run dev` contract and the `minimcp` command line: the math example with its playground, then a clean stop. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } });
const post = (url: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: call, signal: AbortSignal.timeout(20_000) });

it('PORT=N npm run -s dev serves the math example at /mcp and the playground at /; SIGTERM stops both processes', async () => {
  const npm = spawn('npm', ['run', '-s', 'dev'], { cwd: root, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const base = await new Promise<string>((resolve, reject) => {
    npm.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /playground (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (found) resolve(found[1]!);
    });
    npm.once('exit', () => reject(new Error(`npm run dev exited early:\n${out}`)));
  });
  const page = await fetch(base);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await page.text()).toContain('<title>MiniMCP playground</title>');
  const answer = await (await post(`${base}mcp`)).json();
  expect(answer.result.structuredContent).toEqual({ result: 5 });
  expect((await fetch(`${base}elsewhere`)).status).toBe(404);

  const exited = new Promise((resolve) => npm.once('exit', resolve));
  npm.kill('SIGTERM');
  await exited;
  const stillThere = await fetch(base, { signal: AbortSignal.timeout(2000) }).then(() => true, () => false);
  expect(stillThere).toBe(false);
}, 60_000);

/** The `minimcp` command from the sources, its stdout and stderr together. */
const run = (args: string[]) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev/cli.ts', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    child.once('exit', (code) => resolve({ code, out }));
  });

it('minimcp with no command prints the usage; an unknown command fails', async () => {
  const help = await run([]);
  expect(help.code).toBe(0);
  expect(help.out).toContain('minimcp dev <server file>');
  expect((await run(['frobnicate'])).code).toBe(1);
  const missing = await run(['dev', 'no/such/file.ts']);
  expect(missing.code).toBe(1);
  expect(missing.out).toContain('no such file');
}, 60_000);

// Issue 26 item 7: `minimcp dev --help` said "no such file …/--help"; a busy port said only EADDRINUSE.
it('minimcp dev --help prints the usage; a busy port is named with what to do', async () => {
  for (const args of [['dev', '--help'], ['dev', 'src/server.ts', '-h'], ['init', '--help']]) {
    const help = await run(args);
    expect(help.code).toBe(0);
    expect(help.out).toContain('minimcp dev <server file>');
    expect(help.out).not.toContain('no such file');
  }
  const holder = createServer();
  await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', listening));
  const { port } = holder.address() as AddressInfo;
  try {
    const busy = await run(['dev', 'examples/math/server.ts', '--port', String(port)]);
    expect(busy.code).toBe(1);
    expect(busy.out).toContain(`Port ${port} on 127.0.0.1 is already in use (EADDRINUSE): stop what holds it, or pick another port: minimcp dev --port N`);
  } finally {
    holder.close();
  }
}, 60_000);

// Issue 26 item 9: from a checkout the starter wrote "minimcp": "^0.1.0", a registry 404 while unpublished.
it('minimcp init from a checkout points the starter at that checkout', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'minimcp-init-'));
  try {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev/cli.ts', 'init', dir], { cwd: root, stdio: 'ignore' });
      child.once('exit', resolve);
    });
    expect(code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies.minimcp).toBe(`file:${root.replace(/\/$/, '')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
