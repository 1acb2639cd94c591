/** The playground page is one self-contained file within its size budget: no external scripts, styles, fonts or images. */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const page = readFileSync(new URL('../../src/dev/playground.html', import.meta.url), 'utf8');
const BUDGET_BYTES = 40 * 1024;

it(`stays within ${BUDGET_BYTES} bytes`, () => {
  expect(Buffer.byteLength(page)).toBeLessThanOrEqual(BUDGET_BYTES);
});

it('loads nothing from elsewhere (works offline)', () => {
  expect(page).not.toMatch(/<script[^>]+src=/i);
  expect(page).not.toMatch(/<link[^>]+rel="?stylesheet/i);
  expect(page).not.toMatch(/@import|url\(/i);
  expect(page).not.toMatch(/(src|href)="(https?:)?\/\//i);
  // The only URLs it fetches are its own server's.
  expect([...page.matchAll(/fetch\('([^']+)'/g)].map((m) => m[1])).toEqual(['/mcp', '/mcp/server-card']);
  expect([...page.matchAll(/EventSource\('([^']+)'/g)].map((m) => m[1])).toEqual(['/__minimcp/events']);
});
