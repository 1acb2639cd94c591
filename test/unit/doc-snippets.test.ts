/**
 * Issue 16 item 3: every code block in README.md and docs/*.md type-checks against the package's own
 * types (scripts/doc-snippets.mjs, one TypeScript program for all of them), and every npm script the docs
 * name exists. The fixture's wrong snippets go through the same program, so a check that passes
 * everything fails here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without a declaration file
import { checkSnippets, documentationFiles, missingScripts } from '../../scripts/doc-snippets.mjs';

const fixture = fileURLToPath(new URL('./fixtures/snippets.md', import.meta.url));
const docs: string[] = documentationFiles();
let problems: string[] = [];
let checked = 0;
let fragments: { where: string; reason: string }[] = [];
// One program for every snippet: about 10 s of CPU, most of it loading the package's types once.
beforeAll(() => {
  ({ problems, checked, fragments } = checkSnippets([...docs, fixture]));
}, 120_000);
const ofFixture = (list: string[]) => list.filter((p) => p.startsWith('test/unit/fixtures/'));

describe('documentation snippets', () => {
  it('every ts/js block in README.md and docs/ type-checks', () => {
    expect(problems.filter((p) => !p.startsWith('test/unit/fixtures/'))).toEqual([]);
  });

  it('every code block is either checked or a fragment with a reason', () => {
    const fences = [...docs, fixture].flatMap((file) => readFileSync(file, 'utf8').match(/^```(ts|typescript|js)\s*$/gm) ?? []);
    // The fixture has 7 code blocks: 5 compiled, 2 fragments (one without a reason).
    expect(checked + fragments.length + 1).toBe(fences.length);
    expect(checked).toBeGreaterThan(25);
    for (const { reason } of fragments) expect(reason.length).toBeGreaterThan(10);
  });

  it('a wrong snippet fails the check, named by file and line', () => {
    expect(ofFixture(problems)).toEqual([
      'test/unit/fixtures/snippets.md:55: a fragment needs a reason: <!-- fragment: why it cannot compile -->',
      "test/unit/fixtures/snippets.md:20: TS2339 Property 'toUpperCase' does not exist on type 'number'.",
      "test/unit/fixtures/snippets.md:26: TS2305 Module '\"minimcp\"' has no exported member 'NoSuchThing'.",
      "test/unit/fixtures/snippets.md:41: TS2305 Module '\"minimcp\"' has no exported member 'NotExported'. (in its snippet-context)",
    ]);
    expect(fragments.filter((f) => f.where.startsWith('test/'))).toEqual([{ where: 'test/unit/fixtures/snippets.md:50', reason: 'a signature sketch' }]);
  });

  it('every npm script the docs name exists in package.json; a missing one is reported', () => {
    expect(missingScripts(docs)).toEqual([]);
    expect(missingScripts([fixture])).toEqual(['test/unit/fixtures/snippets.md:62: "npm run -s no-such-script" is not a script in package.json']);
  });
});
