/** `minimcp dev` conventions: a module that calls serve() itself, a factory export, and the errors a user meets. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDev } from '../../src/dev/supervisor.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = (path: string) => JSON.stringify(join(root, 'src', path));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'minimcp-dev-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withDev(name: string, source: string, check: (base: string, printed: string[]) => Promise<void>): Promise<void> {
  const file = join(dir, name);
  writeFileSync(file, source);
  const printed: string[] = [];
  const dev = await startDev({ file, port: 0, print: (line) => printed.push(line) });
  try {
    await check(dev.url, printed);
  } finally {
    await dev.close();
  }
}

const callTool = async (base: string, name: string) =>
  (await fetch(`${base}mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
    signal: AbortSignal.timeout(30_000),
  })).json();

describe('minimcp dev', () => {
  it('serves a module that calls serve() itself, on the dev address (its path and options kept), and hands it that URL', async () => {
    const source = `
      import { MiniMCP } from ${src('index.ts')};
      import { serve } from ${src('transports/http/node.ts')};
      const mcp = new MiniMCP({ name: 'self-served', version: '1' });
      let shown = '';
      mcp.tool('where', {}, () => shown);
      const running = await serve(mcp, { port: 4321, path: '/custom' });
      shown = running.url;`;
    await withDev('self.mjs', source, async (base) => {
      expect((await callTool(base, 'where')).result.content[0].text).toBe(`${base}mcp`);
    });
  }, 60_000);

  it('serves a default-exported factory', async () => {
    const source = `
      import { MiniMCP } from ${src('index.ts')};
      export default async () => new MiniMCP({ name: 'factory', version: '1' }).tool('hi', {}, () => 'from a factory');`;
    await withDev('factory.ts', source, async (base) => {
      expect((await callTool(base, 'hi')).result.content[0].text).toBe('from a factory');
    });
  }, 60_000);

  it('re-reads a skill edited on disk: skills/list shows the new digest after the reload', async () => {
    const skill = join(dir, 'skills/notes');
    mkdirSync(skill, { recursive: true });
    const write = (body: string) => writeFileSync(join(skill, 'SKILL.md'), `---\nname: notes\ndescription: Take notes\n---\n\n${body}\n`);
    write('first version');
    const source = `
      import { MiniMCP } from ${src('index.ts')};
      export default async () => new MiniMCP({ name: 'skills', version: '1' }).skills(new URL('./skills', import.meta.url));`;
    const list = async (base: string) => {
      const reply = await (await fetch(`${base}mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: {} }),
        signal: AbortSignal.timeout(30_000),
      })).json();
      return reply.result?.skills?.[0]?.resources?.[0] as { digest: string; size: number } | undefined;
    };
    await withDev('skills-server.ts', source, async (base) => {
      const before = await list(base);
      expect(before?.digest).toMatch(/^sha256:/);
      write('second, longer version');
      // While the server reloads, /mcp answers 503 (no result): keep asking until the new server answers.
      let after = before;
      for (let i = 0; i < 100 && (after === undefined || after.digest === before?.digest); i++) {
        await new Promise((r) => setTimeout(r, 100));
        after = await list(base).catch(() => undefined);
      }
      expect(after?.digest).not.toBe(before?.digest);
      expect(after!.size).toBe(before!.size + 'second, longer version'.length - 'first version'.length);
    });
  }, 60_000);

  it('--watch: a skills/ folder beside src/ reloads the server too; a missing folder is named', async () => {
    const project = mkdtempSync(join(tmpdir(), 'minimcp-dev-watch-'));
    try {
      writeFileSync(join(project, 'package.json'), '{ "type": "module" }');
      mkdirSync(join(project, 'src'));
      mkdirSync(join(project, 'skills/notes'), { recursive: true });
      const write = (body: string) => writeFileSync(join(project, 'skills/notes/SKILL.md'), `---\nname: notes\ndescription: Take notes\n---\n\n${body}\n`);
      write('first');
      const file = join(project, 'src/server.ts');
      writeFileSync(file, `import { MiniMCP } from ${src('index.ts')};
        export default async () => new MiniMCP({ name: 'skills', version: '1' }).skills(new URL('../skills', import.meta.url));`);
      await expect(startDev({ file, port: 0, watch: [join(project, 'nope')], print: () => {} })).rejects.toThrow(`minimcp dev --watch: no such folder ${join(project, 'nope')}`);
      const printed: string[] = [];
      const dev = await startDev({ file, port: 0, watch: [join(project, 'skills'), join(project, 'src')], print: (line) => printed.push(line) });
      const digest = async () => {
        const reply = await (await fetch(`${dev.url}mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: {} }),
          signal: AbortSignal.timeout(30_000),
        })).json();
        return reply.result?.skills?.[0]?.resources?.[0]?.digest as string | undefined;
      };
      try {
        // src/ is the module's own folder: watched once, not twice.
        expect(printed).toContain(`minimcp dev: watching ${join(project, 'src')}, ${join(project, 'skills')} (restarts on save)`);
        const before = await digest();
        expect(before).toMatch(/^sha256:/);
        write('second, after a save outside src/');
        let after = before;
        for (let i = 0; i < 100 && (after === undefined || after === before); i++) {
          await new Promise((r) => setTimeout(r, 100));
          after = await digest().catch(() => undefined);
        }
        expect(after).toMatch(/^sha256:/);
        expect(after).not.toBe(before);
      } finally {
        await dev.close();
      }
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 60_000);

  it('a module that gives no server explains the convention; /mcp answers 503 with the reason', async () => {
    await withDev('nothing.ts', 'export const x = 1;', async (base, printed) => {
      const answer = await fetch(`${base}mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(30_000) });
      expect(answer.status).toBe(503);
      expect((await answer.json()).error.message).toMatch(/did not give minimcp dev a server.*export default mcp/);
      expect(printed.join('\n')).toMatch(/export default mcp/);
    });
  }, 60_000);

  it('a throw at import time is shown with a code frame at the throwing line', async () => {
    const source = `const port = 1;\nif (port) {\n  throw new Error('no database');\n}\nexport default undefined;\n`;
    await withDev('throws.ts', source, async (base, printed) => {
      const answer = await fetch(`${base}mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(30_000) });
      expect(answer.status).toBe(503);
      const text = printed.join('\n');
      expect(text).toContain('no database');
      expect(text).toMatch(/throws\.ts:3:\d+/);
      expect(text).toMatch(/> 3 \|   throw new Error\('no database'\);/);
    });
  }, 60_000);
});
