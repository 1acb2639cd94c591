/** The playground lists the server's skills (SEP-2640) and shows a skill's files, each readable in one click. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, playgroundOn } from './support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe.skipIf(!hasChromium)('the playground lists skills', () => {
  let dir: string;
  let playground: Awaited<ReturnType<typeof playgroundOn>>;
  let page: Page;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'minimcp-playground-skills-'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    mkdirSync(join(dir, 'skills/acme/refunds/templates'), { recursive: true });
    writeFileSync(join(dir, 'skills/acme/refunds/SKILL.md'), '---\nname: refunds\ndescription: Process refunds\n---\n\n# Refunds\n');
    writeFileSync(join(dir, 'skills/acme/refunds/templates/email.md'), 'Dear customer\n');
    writeFileSync(join(dir, 'server.ts'), `import { MiniMCP } from ${JSON.stringify(join(root, 'src/index.ts'))};
      export default async () => new MiniMCP({ name: 'skills', version: '1' }).skills(new URL('./skills', import.meta.url));`);
    playground = await playgroundOn(join(dir, 'server.ts'));
    page = playground.page;
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the skill by its path, shows its frontmatter and files, and reads a file', async () => {
    await expect.poll(() => page.locator('#skills button').allTextContents()).toEqual(['acme/refunds']);
    await page.locator('#skills button').click();
    expect(await page.locator('#main h2').textContent()).toBe('refunds');
    expect(await page.locator('#main .desc').textContent()).toBe('Process refunds');
    expect(await page.locator('#skill-files button').allTextContents()).toEqual(['SKILL.md', 'templates/email.md']);
    expect(await page.locator('#skill-files li').nth(1).textContent()).toMatch(/14 bytes · sha256:[0-9a-f]{12}…/);
    await page.locator('#skill-files button', { hasText: 'templates/email.md' }).click();
    await page.locator('#result[data-done]').waitFor();
    expect(await page.locator('#result').textContent()).toContain('Dear customer');
  }, 30_000);
});
