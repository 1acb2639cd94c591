/**
 * Issue 26 item 1: the README's and docs' TypeScript snippets and test/types/ compile against the
 * package's declarations under each configuration of scripts/type-matrix.mjs (one compiler run each);
 * and a wrong schema's compiler message names what is wrong, not JSON Schema.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without a declaration file
import { CONFIGURATIONS, compile, prepareApp, versionOf } from '../../scripts/type-matrix.mjs';

interface Configuration {
  name: string;
  compiler: string;
  options: Record<string, unknown>;
}
interface App {
  app: string;
  exports: Record<string, unknown>;
  include?: string[];
}

let prepared: App;
beforeAll(() => {
  prepared = prepareApp();
});
afterAll(() => rmSync(prepared.app, { recursive: true, force: true }));

describe('the type-test matrix', () => {
  it('covers tsc --init of TypeScript 5.9 and 7, the strictest flags and the oldest TypeScript the README names', () => {
    const versions = (CONFIGURATIONS as Configuration[]).map((c) => versionOf(c.compiler) as string);
    expect(versions.some((version) => version.startsWith('5.9.'))).toBe(true);
    expect(versions.some((version) => version.startsWith('7.'))).toBe(true);
    expect(versions).toContain('5.4.5');
    for (const c of CONFIGURATIONS as Configuration[]) {
      expect(c.options).toMatchObject({
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        isolatedModules: true,
      });
    }
  });

  for (const configuration of CONFIGURATIONS as Configuration[]) {
    it(`compiles the snippets and test/types: ${configuration.name}`, () => {
      expect(compile(prepared, configuration)).toEqual([]);
    });
  }

  it("names a wrong schema's real problem: a bare shape's fix, a Standard Schema's mismatched field", () => {
    writeFileSync(
      join(prepared.app, 'wrong.ts'),
      `import * as z from 'zod';
import { MiniMCP } from 'minimcp';
const mcp = new MiniMCP({ name: 'x', version: '1' });
mcp.tool('bare', { input: { n: z.number() } }, () => '');
const issues = { '~standard': { version: 1 as const, vendor: 'x', validate: () => ({ issues: [{ message: 'no', path: 'a.b' }] }) } };
mcp.tool('issues', { input: issues }, () => '');
`,
    );
    // tsc --init of TypeScript 7, the quickest to run.
    const config = { ...(CONFIGURATIONS as Configuration[])[1]!, name: 'wrong' };
    const errors = compile({ ...prepared, include: ['wrong.ts'] }, config).join('\n');
    expect(errors).toContain('wrap it, e.g. z.object({ ... })');
    expect(errors).toContain("Types of property 'path' are incompatible");
    expect(errors).not.toMatch(/Index signature/);
  });
});
