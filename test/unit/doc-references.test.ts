/**
 * Issue 23 item 5: every repository path and private member README.md and docs/*.md name exists
 * (scripts/doc-references.mjs), so prose about the code cannot go stale silently when a file moves.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without a declaration file
import { missingReferences } from '../../scripts/doc-references.mjs';

const fixture = fileURLToPath(new URL('./fixtures/references.md', import.meta.url));

describe('documentation references', () => {
  it('every path and private member in README.md and docs/ exists', () => {
    expect(missingReferences()).toEqual([]);
  });

  it('a missing file, a moved file and an unknown private member are named by file and line', () => {
    expect(missingReferences([fixture])).toEqual([
      'test/unit/fixtures/references.md:4: src/dispatch.ts does not exist',
      'test/unit/fixtures/references.md:5: src/request/in-flight.ts does not exist',
      'test/unit/fixtures/references.md:5: #becomeTask is not declared in src/',
    ]);
  });
});
