/** `minimcp init [dir]`: a starter project with one tool, one test (createTestClient) and `npm run dev`. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const SERVER = `import * as z from 'zod';
import { MiniMCP } from 'minimcp';

const mcp = new MiniMCP({ name: 'NAME', version: '0.1.0' });

mcp.tool(
  'greet',
  { description: 'Greets someone by name', input: z.object({ name: z.string().describe('Who to greet') }) },
  ({ name }) => \`Hello, \${name}!\`,
);

// \`minimcp dev\` serves the default export; serve() from minimcp/node or serveStdio() from
// minimcp/stdio serve it in production.
export default mcp;
`;

const TEST = `import { describe, expect, it } from 'vitest';
import { createTestClient } from 'minimcp/testing';
import mcp from '../src/server.js';

describe('greet', () => {
  it('greets by name', async () => {
    const client = createTestClient(mcp);
    const result = await client.callTool('greet', { name: 'Ada' });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  });
});
`;

const README = `# NAME

An MCP server built with MiniMCP.

    npm run dev     # the server with a playground at http://127.0.0.1:3000/, restarted on save
    npm test        # the tests (createTestClient from minimcp/testing, no transport)
`;

const packageJson = (name: string, dependency: string): string =>
  `${JSON.stringify({
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: { dev: 'minimcp dev src/server.ts', test: 'vitest run' },
    dependencies: { minimcp: dependency, zod: '^4.0.0' },
    devDependencies: { tsx: '^4.0.0', vitest: '^4.0.0' },
  }, null, 2)}\n`;

/**
 * Writes the starter into `dir` (created if missing); refuses to overwrite. Returns what to do next.
 * `dependency` is its `minimcp` dependency (see starter-dependency.ts).
 */
export function createStarter(dir: string, dependency = '^0.1.0'): string {
  const root = resolve(dir);
  const name = basename(root).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'mcp-server';
  const files: Record<string, string> = {
    'package.json': packageJson(name, dependency),
    'src/server.ts': SERVER.replace('NAME', name),
    'test/server.test.ts': TEST,
    'README.md': README.replace('NAME', name),
  };
  const clash = Object.keys(files).filter((file) => existsSync(join(root, file)));
  if (clash.length) throw new Error(`minimcp init: ${clash.join(', ')} already exist in ${root}; nothing was written`);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  const cd = resolve(dir) === process.cwd() ? '' : `cd ${dir} && `;
  return `Wrote a MiniMCP starter to ${root}. Next:\n  ${cd}npm install\n  npm run dev     # playground at http://127.0.0.1:3000/\n  npm test`;
}
