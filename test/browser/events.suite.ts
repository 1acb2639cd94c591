/** The playground lists the server's event types (SEP-3415) and shows a live push stream, or polls. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, playgroundOn } from './support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe.skipIf(!hasChromium)('the playground lists events and streams them', () => {
  let dir: string;
  let playground: Awaited<ReturnType<typeof playgroundOn>>;
  let page: Page;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'minimcp-playground-events-'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    writeFileSync(join(dir, 'server.ts'), `import { MiniMCP } from ${JSON.stringify(join(root, 'src/index.ts'))};
      export default () => {
        const mcp = new MiniMCP({ name: 'events', version: '1' });
        mcp.configureEvents({ heartbeatMs: 100 });
        const tick = mcp.event('clock.tick', { description: 'A tick every 100 ms', payload: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } });
        let n = 0;
        setInterval(() => void tick.emit({ n: ++n }), 100).unref();
        return mcp;
      };`);
    playground = await playgroundOn(join(dir, 'server.ts'));
    page = playground.page;
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the event type, streams its occurrences live, stops, and polls', async () => {
    await expect.poll(() => page.locator('#events button').allTextContents()).toEqual(['clock.tick']);
    await page.locator('#events button').click();
    expect(await page.locator('#main h2').textContent()).toBe('clock.tick');
    await page.locator('#event-stream').click();
    await expect.poll(() => page.locator('#event-frames li').allTextContents(), { timeout: 10_000 }).toEqual(
      expect.arrayContaining([expect.stringMatching(/^active /), expect.stringMatching(/^event \{"n":\d+\}/), expect.stringMatching(/^heartbeat /)]));
    await page.locator('#event-stop').click();
    await expect.poll(() => page.locator('#event-stop').isDisabled()).toBe(true);
    await page.locator('#event-poll').click();
    await expect.poll(() => page.locator('#event-frames li').first().textContent()).toMatch(/^poll /);
  }, 30_000);
});
