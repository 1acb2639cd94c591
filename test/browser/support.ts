/**
 * Headless Chromium from the system's packages (Debian `chromium`), driven by playwright-core: never
 * a downloaded browser. Without it the browser tests are skipped with one line, except in CI
 * (CI=true), where a missing browser fails them.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startDev } from '../../src/dev/supervisor.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

if (!hasChromium) {
  if (process.env.CI === 'true') throw new Error(`Browser tests need Chromium at ${CHROMIUM} in CI (apt-get install -y chromium)`);
  console.log(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

/**
 * A browser with a fresh profile (playwright passes it as --user-data-dir); `extraArgs` e.g. maps a
 * test host name to 127.0.0.1.
 */
export async function launch(extraArgs: string[] = []): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'minimcp-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 760 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ...extraArgs,
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** `minimcp dev` on `file` and a page on its playground, once it shows ready; `close()` ends both. */
export async function playgroundOn(file: string, print: (line: string) => void = () => {}): Promise<{ page: Page; close(): Promise<void> }> {
  const dev = await startDev({ file, port: 0, print });
  let browser: Awaited<ReturnType<typeof launch>> | undefined;
  const close = async () => {
    await browser?.close();
    await dev.close();
  };
  try {
    browser = await launch();
    const page = await browser.browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(dev.url);
    await page.locator('#status.ready').waitFor();
    return { page, close };
  } catch (error) {
    await close();
    throw error;
  }
}
