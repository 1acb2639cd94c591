/**
 * Issue 26 item 3: `minimcp dev` keeps restarting after atomic saves (write a temporary file, rename it
 * over the module: `sed -i`, vim, "safe write" editors), several in a row, on Node 20, for a TypeScript
 * module in `src/` that calls serve() itself (Node 20's recursive fs.watch lost the file after a rename).
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDev } from '../../src/dev/supervisor.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = (path: string) => JSON.stringify(join(root, 'src', path));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'minimcp-atomic-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  mkdirSync(join(dir, 'src'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const source = (text: string) => `
import { MiniMCP } from ${src('index.ts')};
import { serve } from ${src('transports/http/node.ts')};
const mcp = new MiniMCP({ name: 'atomic', version: '1' });
mcp.tool('say', {}, () => ${JSON.stringify(text)});
await serve(mcp, { port: 3000 });
`;

async function says(base: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${base}mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'say', arguments: {} } }),
      signal: AbortSignal.timeout(10_000),
    });
    return ((await response.json()) as { result?: { content: { text: string }[] } }).result?.content[0]?.text;
  } catch {
    return undefined;
  }
}

async function until(base: string, text: string): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if ((await says(base)) === text) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

it('restarts after each of six atomic saves in a row (temporary file renamed over the module)', async () => {
  const file = join(dir, 'src', 'server.ts');
  writeFileSync(file, source('v0'));
  const dev = await startDev({ file, port: 0, print: () => {} });
  try {
    expect(await until(dev.url, 'v0')).toBe(true);
    for (let i = 1; i <= 6; i++) {
      const temporary = join(dir, 'src', `.server.ts.${i}.tmp`);
      writeFileSync(temporary, source(`v${i}`));
      renameSync(temporary, file);
      expect(await until(dev.url, `v${i}`), `save ${i}`).toBe(true);
    }
    // An in-place save still counts after all that.
    writeFileSync(file, source('in place'));
    expect(await until(dev.url, 'in place')).toBe(true);
  } finally {
    await dev.close();
  }
}, 180_000);
