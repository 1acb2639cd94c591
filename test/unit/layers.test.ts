/**
 * Issue 23: the production code never loads the dev tool. `minimcp dev` reaches serve() through a
 * global override (src/transports/http/serve-override.ts), so no file outside src/dev/ imports from it.
 * Issue 35: the plan in docs/architecture.md holds (imports run down its floors), tasks are a tenant
 * (nothing in request/ or protocol/ imports tasks/), and the eras are told apart by the revision.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src', import.meta.url));
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));

/** The files under src/ whose path matches `where` and whose text shows `shows`, as paths under src/. */
const offenders = (where: (path: string) => boolean, shows: (file: string) => boolean): string[] =>
  files(src).filter((file) => where(relative(src, file)) && shows(file)).map((file) => relative(src, file));
const text = (file: string): string => readFileSync(file, 'utf8');
// testing/ is a client: it speaks the revision its user picked; so is gateway/, to its upstreams.
const servesEras = (path: string): boolean => !/^(?:protocol\/revisions|testing|gateway)\//.test(path);

describe('layers', () => {
  it('no file outside src/dev/ imports the dev tool', () => {
    expect(offenders((path) => !path.startsWith('dev/'), (file) => /from '(?:\.\.?\/)+(?:\.\.\/)*dev\//.test(text(file)))).toEqual([]);
  });

  it('no file outside src/protocol/revisions/ branches on the protocol family by name (issue 23: it asks the Revision)', () => {
    const family = "'(?:handshake|stateless|legacy|modern)'";
    const branch = new RegExp(`\\bera\\s*[!=]==\\s*${family}|${family}\\s*[!=]==\\s*[\\w.]*era\\b|\\b(?:legacy|modern)\\s*\\?`);
    expect(offenders(servesEras, (file) => branch.test(text(file)))).toEqual([]);
  });

  it('no file in src/request/ or src/protocol/ imports src/tasks/ (tasks plug into the hand-off seam)', () => {
    const intoTasks = (file: string): boolean => importsOf(file).some((target) => relative(src, target).startsWith('tasks/'));
    expect(offenders((path) => /^(?:request|protocol)\//.test(path), intoTasks)).toEqual([]);
  });

  it("no file tells the eras apart by whether a request's `_meta` envelope is there (it asks the revision)", () => {
    const presence = /\b(?:call|this)\.meta\s*(?:&&|\?(?![.?])|\)|[!=]==\s*undefined)|!\s*(?:call|this)\.meta\b/;
    expect(offenders(servesEras, (file) => presence.test(text(file)))).toEqual([]);
  });

  it('every import in src/ runs down the plan in docs/architecture.md, and the plan names every room', () => {
    const floors = planFloors();
    const rooms = new Set(files(src).map(roomOf));
    expect([...rooms].filter((room) => !floors.has(room)).sort()).toEqual([]);
    expect([...floors.keys()].filter((room) => !rooms.has(room)).sort()).toEqual([]);
    const upward: string[] = [];
    for (const file of files(src)) {
      for (const target of importsOf(file)) {
        const [from, to] = [roomOf(file), roomOf(target)];
        if (from !== to && floors.get(from)! <= floors.get(to)!) upward.push(`${relative(src, file)} -> ${relative(src, target)}`);
      }
    }
    // The one on purpose: createProxy builds a MiniMCP, while server.ts offers mcp.proxy() and mcp.mount().
    expect(upward).toEqual(['gateway/index.ts -> server.ts']);
  });

  it('src/ keeps at most 9 loose files: everything else lives in a room of its own', () => {
    expect(readdirSync(src, { withFileTypes: true }).filter((entry) => entry.isFile()).length).toBeLessThanOrEqual(9);
  });
});

/** The relative modules a file imports (static, type-only and dynamic), as source paths. */
function importsOf(file: string): string[] {
  return [...text(file).matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+|declare module\s+)'(\.{1,2}\/[^']+)'/gm)].map((match) =>
    resolve(dirname(file), match[1]!).replace(/\.js$/, '.ts'),
  );
}

/** A file's room: the folder right under src/, or the file itself when it stands loose in src/. */
function roomOf(file: string): string {
  const [first, second] = relative(src, file).split('/');
  return second === undefined ? first! : `${first}/`;
}

/** The floors of the plan block in docs/architecture.md: room -> floor. */
function planFloors(): Map<string, number> {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/architecture.md', import.meta.url)), 'utf8');
  const block = /<!-- plan: checked by test\/unit\/layers\.test\.ts -->\n```text\n([\s\S]*?)```/.exec(doc);
  expect(block, 'docs/architecture.md has its plan block').not.toBeNull();
  const floors = new Map<string, number>();
  for (const line of block![1]!.trim().split('\n')) {
    const [floor, ...words] = line.trim().split(/\s+/);
    for (const word of words) {
      if (!/(?:\/|\.ts)$/.test(word)) break;
      floors.set(word, Number(floor));
    }
  }
  return floors;
}
