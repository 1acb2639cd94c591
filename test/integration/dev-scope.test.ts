/**
 * Issue 26 item 4: `minimcp dev --scope <JSON or module>` gives a typed server its scope (without it the
 * playground's call failed with "Cannot read properties of undefined"), and the playground's status
 * events say which scope requests get.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDev } from '../../src/dev/supervisor.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'minimcp-dev-scope-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  writeFileSync(
    join(dir, 'server.ts'),
    `import { MiniMCP } from ${JSON.stringify(join(root, 'src/index.ts'))};
     const mcp = new MiniMCP<{ user: string }>({ name: 'scoped', version: '1' });
     mcp.tool('whoami', {}, (_args, ctx) => ctx.scope.user);
     export default mcp;`,
  );
  writeFileSync(join(dir, 'scope.ts'), `export default (request: { headers: Record<string, unknown> }) => ({ user: String(request.headers['x-user'] ?? 'nobody') });`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const whoami = async (base: string, headers: Record<string, string> = {}) =>
  (await (await fetch(`${base}mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    signal: AbortSignal.timeout(30_000),
  })).json()) as { result: { content: { text: string }[]; isError?: boolean } };

/** The first status event the playground gets. */
async function firstStatus(base: string): Promise<{ scope: string | null }> {
  const response = await fetch(`${base}__minimcp/events`, { signal: AbortSignal.timeout(10_000) });
  const reader = response.body!.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return JSON.parse(new TextDecoder().decode(value).replace(/^data: /, '')) as { scope: string | null };
}

describe('minimcp dev --scope', () => {
  it('JSON: every request gets it; the playground is told which', async () => {
    const printed: string[] = [];
    const dev = await startDev({ file: join(dir, 'server.ts'), port: 0, scope: '{"user":"ada"}', print: (line) => printed.push(line) });
    try {
      expect((await whoami(dev.url)).result.content[0]!.text).toBe('ada');
      expect((await firstStatus(dev.url)).scope).toBe('{"user":"ada"}');
      expect(printed).toContain('minimcp dev: every request gets the scope {"user":"ada"}');
    } finally {
      await dev.close();
    }
  }, 60_000);

  it("a module: its default export is the scope factory, called with each request", async () => {
    const dev = await startDev({ file: join(dir, 'server.ts'), port: 0, scope: join(dir, 'scope.ts'), print: () => {} });
    try {
      expect((await whoami(dev.url, { 'x-user': 'grace' })).result.content[0]!.text).toBe('grace');
      expect((await firstStatus(dev.url)).scope).toBe(`default export of ${join(dir, 'scope.ts')}`);
    } finally {
      await dev.close();
    }
  }, 60_000);

  it('without it the playground is told there is none; bad JSON and a missing module are refused at start', async () => {
    const dev = await startDev({ file: join(dir, 'server.ts'), port: 0, print: () => {} });
    try {
      expect((await firstStatus(dev.url)).scope).toBeNull();
    } finally {
      await dev.close();
    }
    await expect(startDev({ file: join(dir, 'server.ts'), port: 0, scope: '{"user":', print: () => {} })).rejects.toThrow('--scope: not valid JSON');
    await expect(startDev({ file: join(dir, 'server.ts'), port: 0, scope: 'no-such-scope.ts', print: () => {} })).rejects.toThrow('--scope: no such file');
  }, 60_000);
});
