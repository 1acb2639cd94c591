/**
 * `minimcp init` as a new user meets it: the built package (dist/ and bin/ as `files` ships them) in a
 * scratch project, the starter written by the installed bin, its own test run with vitest, and its
 * `npm run dev` command serving the starter's tool.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let app: string;
let bin: string;

beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'minimcp-starter-'));
  const pkg = join(app, 'node_modules', 'minimcp');
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), join(pkg, 'dist')], { stdio: 'pipe' });
  cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
  cpSync(join(root, 'bin'), join(pkg, 'bin'), { recursive: true });
  // What `npm install` would add: the package's dependency and the starter's own (from this repo's copy).
  for (const dep of ['@cfworker', 'zod', 'vitest', 'tsx']) symlinkSync(join(root, 'node_modules', dep), join(app, 'node_modules', dep), 'dir');
  bin = join(pkg, 'bin', 'minimcp.mjs');
}, 180_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

it('writes the starter, refuses to overwrite it, and its test passes against the built package', () => {
  const printed = execFileSync(process.execPath, [bin, 'init', '.'], { cwd: app, encoding: 'utf8' });
  expect(printed).toContain('npm run dev');
  for (const file of ['package.json', 'src/server.ts', 'test/server.test.ts', 'README.md']) expect(existsSync(join(app, file))).toBe(true);
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  expect(manifest.type).toBe('module');
  expect(manifest.scripts.dev).toBe('minimcp dev src/server.ts');
  expect(manifest.dependencies.minimcp).toBe(`^${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}`);
  expect(readFileSync(join(app, 'README.md'), 'utf8')).toMatch(/npm run dev[\s\S]*npm test/);
  expect(() => execFileSync(process.execPath, [bin, 'init', '.'], { cwd: app, stdio: 'pipe' })).toThrow(/already exist/);

  const output = execFileSync(process.execPath, [join(app, 'node_modules/vitest/vitest.mjs'), 'run'], { cwd: app, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  expect(output).toMatch(/1 passed/);
}, 120_000);

it("the starter's dev command serves its tool through the installed bin", async () => {
  const child = spawn(process.execPath, [bin, 'dev', 'src/server.ts', '--port', '0'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    const base = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /playground (http:\/\/\S+\/)/.exec(out);
        if (found) resolve(found[1]!);
      });
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', () => reject(new Error(`minimcp dev exited:\n${out}`)));
    });
    const response = await fetch(`${base}mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet', arguments: { name: 'Ada' } } }),
      signal: AbortSignal.timeout(30_000),
    });
    expect((await response.json()).result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(await (await fetch(base)).text()).toContain('MiniMCP playground');
  } finally {
    child.kill('SIGTERM');
  }
}, 60_000);
