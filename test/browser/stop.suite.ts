/**
 * The playground stops a running call, and the server's handler is cancelled: in 2025 by
 * `notifications/cancelled`, in 2026 by closing the request.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, playgroundOn } from './support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe.skipIf(!hasChromium)('the playground stops a running call', () => {
  let dir: string;
  let playground: Awaited<ReturnType<typeof playgroundOn>>;
  let page: Page;
  const raw: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'minimcp-playground-stop-'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    // `hang` waits until its handler is cancelled and counts it; `stops` says how many were.
    writeFileSync(join(dir, 'server.ts'), `import { MiniMCP } from ${JSON.stringify(join(root, 'src/index.ts'))};
      const mcp = new MiniMCP({ name: 'stop', version: '1.0.0' });
      let stopped = 0;
      mcp.tool('hang', { description: 'Waits to be stopped' }, (_args, ctx) => new Promise((resolve) => {
        ctx.progress(1, 2, 'waiting');
        ctx.signal.addEventListener('abort', () => { stopped += 1; resolve('stopped'); }, { once: true });
      }));
      mcp.tool('stops', { description: 'How many calls were stopped' }, () => String(stopped));
      export default mcp;`);
    playground = await playgroundOn(join(dir, 'server.ts'));
    page = playground.page;
    page.on('request', (request) => void (request.method() === 'POST' && raw.push(request.postData() ?? '')));
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = async (name: string) => {
    await page.locator(`nav button[data-key="tool:${name}"]`).click();
    await page.locator('#run-form').waitFor();
  };
  const stops = async () => {
    await open('stops');
    await page.locator('#run').click();
    await page.locator('#result[data-done]').waitFor();
    return page.locator('#result').textContent();
  };

  for (const [era, expected] of [['2025-11-25', '1'], ['2026-07-28', '2']] as const) {
    it(`stops a call in ${era} and the handler is cancelled`, async () => {
      await page.locator('#era').selectOption(era);
      await expect.poll(() => page.locator('#status').textContent()).toBe('ready');
      await expect.poll(() => page.locator('#tools button').allTextContents()).toEqual(['hang', 'stops']);
      await open('hang');
      await page.locator('#run').click();
      await expect.poll(() => page.locator('#progress').getAttribute('value')).toBe('1'); // the handler is running
      raw.length = 0;
      await page.locator('#stop').click();
      await page.locator('#result[data-done] #stopped').waitFor();
      const cancels = raw.filter((body) => body.includes('notifications/cancelled'));
      expect(cancels).toHaveLength(era === '2025-11-25' ? 1 : 0); // 2026 has no such notification: the request closes
      await expect.poll(stops).toBe(expected);
    }, 30_000);
  }
});
