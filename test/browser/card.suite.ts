/** The playground shows the server's Server Card (SEP-2127), as a crawler reads it, and says how to add one. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, playgroundOn } from './support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = (path: string) => JSON.stringify(join(root, 'src', path));

describe.skipIf(!hasChromium)('the playground shows the server card', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'minimcp-playground-card-'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fetches /mcp/server-card beside the endpoint and shows its fields and cache headers', async () => {
    const file = join(dir, 'with-card.ts');
    writeFileSync(file, `import { MiniMCP } from ${src('index.ts')};
      import { serve } from ${src('transports/http/node.ts')};
      const mcp = new MiniMCP({ name: 'card-fixture', version: '4.2.0', title: 'Card fixture', description: 'A server with a card.' });
      await serve(mcp, { path: '/custom', card: { name: 'com.example/card-fixture' } });`);
    const { page, close } = await playgroundOn(file);
    try {
      await expect.poll(() => page.locator('#status').textContent()).toBe('ready');
      await page.locator('#card').click();
      await page.locator('#card-result[data-done]').waitFor();
      const shown = (await page.locator('#card-result').textContent())!;
      expect(shown).toContain('content-type: application/mcp-server-card+json');
      expect(shown).toMatch(/etag: "[\w-]+"/);
      expect(shown).toContain('"com.example/card-fixture"');
      expect(shown).toContain('"4.2.0"');
      // The remote is the dev address users reach (its /mcp), not the child's own port and path.
      expect(shown).toContain(JSON.stringify(new URL('/mcp', page.url()).href));
    } finally {
      await close();
    }
  }, 60_000);

  it('says how to add one when the server has none', async () => {
    const file = join(dir, 'without-card.ts');
    writeFileSync(file, `import { MiniMCP } from ${src('index.ts')};
      export default new MiniMCP({ name: 'plain', version: '1.0.0' });`);
    const { page, close } = await playgroundOn(file);
    try {
      await expect.poll(() => page.locator('#status').textContent()).toBe('ready');
      await page.locator('#card').click();
      await page.locator('#card-result[data-done]').waitFor();
      expect(await page.locator('#card-result').textContent()).toContain('No server card: serve the server with the card option');
    } finally {
      await close();
    }
  }, 60_000);
});
