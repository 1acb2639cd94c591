/**
 * Issue 23: the production code never loads the dev tool. `minimcp dev` reaches serve() through a
 * global override (src/transports/http/serve-override.ts), so no file outside src/dev/ imports from it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src', import.meta.url));
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));

describe('layers', () => {
  it('no file outside src/dev/ imports the dev tool', () => {
    const offenders = files(src)
      .filter((file) => !relative(src, file).startsWith('dev/'))
      .filter((file) => /from '(?:\.\.?\/)+(?:\.\.\/)*dev\//.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file));
    expect(offenders).toEqual([]);
  });

  it('no file outside src/protocol/revisions/ branches on the protocol family by name (issue 23: it asks the Revision)', () => {
    const family = "'(?:handshake|stateless|legacy|modern)'";
    const branch = new RegExp(`\\bera\\s*[!=]==\\s*${family}|${family}\\s*[!=]==\\s*[\\w.]*era\\b|\\b(?:legacy|modern)\\s*\\?`);
    const offenders = files(src)
      // testing/ is a client: it speaks the revision its user picked; so is gateway/, to its upstreams.
      .filter((file) => !/^(?:protocol\/revisions|testing|gateway)\//.test(relative(src, file)))
      .filter((file) => branch.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file));
    expect(offenders).toEqual([]);
  });
});
