/**
 * The playground in headless Chromium against `minimcp dev`: forms and results, elicitation in both
 * eras, a progress bar, list_changed, reload on save and a load error with its code frame.
 * UPDATE_SCREENSHOTS=1 npx vitest run test/browser saves the README's screenshots to docs/.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, playgroundOn } from './support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const screenshots = process.env.UPDATE_SCREENSHOTS === '1';

describe.skipIf(!hasChromium)('the playground in Chromium', () => {
  let dir: string;
  let file: string;
  let source: string;
  let playground: Awaited<ReturnType<typeof playgroundOn>>;
  let page: Page;
  const printed: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'minimcp-playground-'));
    file = join(dir, 'server.ts');
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }'); // as `minimcp init` writes it
    source = readFileSync(join(root, 'test/browser/fixtures/playground-server.ts'), 'utf8').replace("'../../../src/index.js'", JSON.stringify(join(root, 'src/index.ts')));
    writeFileSync(file, source);
    playground = await playgroundOn(file, (line) => (printed.push(line), process.env.DEBUG_DEV && console.log(line)));
    page = playground.page;
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = async (kind: string, name: string) => {
    await page.locator(`nav button[data-key="${kind}:${name}"]`).click();
    await page.locator('#run-form').waitFor();
  };
  const run = async () => {
    await page.locator('#run').click();
    await page.locator('#result[data-done]').waitFor();
    return page.locator('#result');
  };

  it('lists tools, prompts, resources and templates', async () => {
    await expect.poll(() => page.locator('#tools button').allTextContents()).toEqual(['add', 'shapes', 'ask', 'slow', 'grow', 'broken', 'picture']);
    expect(await page.locator('#prompts button').allTextContents()).toEqual(['greet']);
    expect(await page.locator('#resources button').allTextContents()).toEqual(['notes']);
    expect(await page.locator('#templates button').allTextContents()).toEqual(['item']);
    expect(await page.locator('#server').textContent()).toContain('Browser fixture');
  });

  it('fills a tool form and shows the text and structuredContent; required fields are marked', async () => {
    await open('tool', 'add');
    expect(await page.locator('label[for] .req').count()).toBe(2);
    await page.locator('[data-field=a]').fill('2');
    await page.locator('[data-field=b]').fill('40');
    const result = await run();
    expect(await result.locator('pre').first().textContent()).toBe('{"sum":42}');
    expect(await result.locator('.tree').textContent()).toContain('sum: 42');
    if (screenshots) await page.screenshot({ path: join(root, 'docs/playground.png') });
  });

  it('builds enums, booleans, arrays and nested objects from the schema, and is usable from the keyboard', async () => {
    await open('tool', 'shapes');
    await page.locator('[data-field=colour]').selectOption({ label: 'green' });
    await page.locator('[data-field=loud]').check();
    await page.getByRole('button', { name: '+ Add item' }).click();
    await page.locator('[data-field="tags[0]"]').fill('x');
    await page.getByRole('button', { name: '+ Add item' }).click();
    await page.locator('[data-field="tags[1]"]').fill('y');
    await page.locator('[data-field=w]').fill('3');
    // Ctrl+Enter runs the form from any field.
    await page.locator('[data-field=w]').press('Control+Enter');
    await page.locator('#result[data-done]').waitFor();
    expect(JSON.parse((await page.locator('#result pre').textContent())!)).toEqual({ colour: 'green', loud: true, tags: ['x', 'y'], size: { w: 3 } });
    // Alt+1 moves focus to the first tool.
    await page.keyboard.press('Alt+1');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('add');
  });

  it('shows isError results, images and resource links', async () => {
    await open('tool', 'broken');
    expect(await (await run()).locator('.iserror').textContent()).toContain('isError');
    await open('tool', 'picture');
    const result = await run();
    expect(await result.locator('img').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await result.getByRole('button', { name: 'notes' }).click();
    await page.locator('#result[data-done]').waitFor();
    expect(await page.locator('#result pre').textContent()).toBe('Remember the milk');
  });

  it('completes prompt arguments through completion/complete and reads templates', async () => {
    await open('prompt', 'greet');
    await page.locator('[data-field=person]').fill('A');
    await expect.poll(() => page.locator('datalist option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))).toEqual(['Ada', 'Alan']);
    await page.locator('[data-field=person]').fill('Ada');
    expect(await (await run()).textContent()).toContain('Say hello to Ada');
    await open('template', 'memo://items/{id}');
    await page.locator('[data-field=id]').fill('7');
    expect(await (await run()).locator('pre').textContent()).toBe('Item number 7');
  });

  for (const era of ['2025-11-25', '2026-07-28']) {
    it(`answers an elicitation form (${era})`, async () => {
      await page.locator('#era').selectOption(era);
      await page.locator('#status.ready').waitFor();
      await open('tool', 'ask');
      await page.locator('#run').click();
      const dialog = page.locator('dialog#ask[open]');
      await dialog.waitFor();
      expect(await dialog.locator('#ask-message').textContent()).toBe('What is your name?');
      await dialog.locator('[data-field=name]').fill('Ada');
      if (screenshots && era === '2025-11-25') await page.screenshot({ path: join(root, 'docs/playground-elicitation.png') });
      await dialog.getByRole('button', { name: 'Accept' }).click();
      await page.locator('#result[data-done]').waitFor();
      expect(await page.locator('#result pre').textContent()).toBe('Hello Ada');
      // The raw panel saw the exchange of this era.
      const rawText = (await page.locator('#raw').textContent())!;
      expect(rawText).toContain(era === '2025-11-25' ? '"method":"elicitation/create"' : '"resultType":"input_required"');
    });
  }

  it('watches a progress bar fill up and the log panel fill in', async () => {
    await page.locator('#era').selectOption('2025-11-25');
    await page.locator('#status.ready').waitFor();
    await open('tool', 'slow');
    await page.locator('#run').click();
    // Seen part-way, then complete.
    await page.waitForFunction(() => {
      const bar = document.querySelector<HTMLProgressElement>('#progress');
      return bar !== null && bar.hasAttribute('value') && bar.value >= 1 && bar.value < 5;
    });
    await page.locator('#result[data-done]').waitFor();
    expect(await page.locator('#progress').evaluate((bar: HTMLProgressElement) => [bar.value, bar.max])).toEqual([5, 5]);
    expect(await page.locator('#result pre').textContent()).toBe('finished');
    expect(await page.locator('#log').textContent()).toContain('[info] finished step 5');
    // The level selector: at "warning" no info line is shown; a 2026 request asks the server for
    // that level in _meta, and the server then sends none.
    const lines = await page.locator('#log li').count();
    await page.locator('#level').selectOption('warning');
    await page.locator('#run').click();
    await page.locator('#result[data-done]').waitFor();
    expect(await page.locator('#log li').count()).toBe(lines);
    await page.locator('#era').selectOption('2026-07-28');
    await page.locator('#status.ready').waitFor();
    await page.locator('#clear').click();
    await open('tool', 'slow');
    await run();
    const rawText = (await page.locator('#raw').textContent())!;
    expect(rawText).toContain('"io.modelcontextprotocol/logLevel":"warning"');
    expect(rawText).not.toContain('notifications/message');
    expect(rawText).toContain('notifications/progress');
    await page.locator('#level').selectOption('info');
    await page.locator('#era').selectOption('2025-11-25');
    await page.locator('#status.ready').waitFor();
  });

  it('refreshes the tool list on list_changed', async () => {
    expect(await page.locator('nav button[data-key="tool:grown"]').count()).toBe(0);
    await open('tool', 'grow');
    await run();
    await page.locator('nav button[data-key="tool:grown"]').waitFor();
  });

  it('reloads the server on save, shows a load error with its code frame, and recovers', async () => {
    const saved = performance.now();
    writeFileSync(file, source.replace("export default mcp;", "mcp.tool('fresh', {}, () => 'new');\nexport default mcp;"));
    await page.locator('nav button[data-key="tool:fresh"]').waitFor();
    const reloadMs = Math.round(performance.now() - saved);
    console.log(`playground: saved file to new tool listed in ${reloadMs} ms; ${printed.filter((l) => l.includes('reloaded')).at(-1)}`);
    expect(printed.some((line) => /reloaded in \d+ ms/.test(line))).toBe(true);

    writeFileSync(file, source.replace("export default mcp;", "const broken: number = ;\nexport default mcp;"));
    const overlay = page.locator('#overlay.show');
    await overlay.waitFor();
    const text = (await overlay.textContent())!;
    expect(text).toContain('server.ts:');
    expect(text).toMatch(/> +\d+ \| const broken: number = ;/);
    expect(printed.join('\n')).toMatch(/> +\d+ \| const broken: number = ;/);
    if (screenshots) await page.screenshot({ path: join(root, 'docs/playground-load-error.png') });

    writeFileSync(file, source);
    await page.locator('#overlay.show').waitFor({ state: 'hidden' });
    await page.locator('#status.ready').waitFor();
    await page.locator('nav button[data-key="tool:add"]').waitFor();
  }, 60_000);
});
