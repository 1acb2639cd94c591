/**
 * Issue 26 item 9: the README and docs ship in the npm tarball, where a relative link can only reach
 * what ships with them. Every relative link and image in the shipped markdown (package.json "files")
 * must resolve to a shipped file; a link to the repository's examples, sources or benchmarks does not.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };

/** Whether npm packs `path` (relative to the root): a "files" entry names it, its folder, or a `*` glob over its folder. */
function ships(path: string): boolean {
  if (path === 'package.json' || path === 'LICENSE') return true; // npm always packs them
  return files.some((entry) => {
    if (entry.includes('*')) {
      const [folder, pattern] = [dirname(entry), entry.slice(dirname(entry).length + 1)];
      const glob = new RegExp(`^${pattern.replaceAll('.', '\\.').replaceAll('*', '[^/]*')}$`);
      return dirname(path) === folder && glob.test(path.slice(folder.length + 1));
    }
    return path === entry || path.startsWith(`${entry}/`);
  });
}

const shippedMarkdown = (): string[] => [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Link and image targets outside code: `[text](target)`, `![alt](target)`, `[ref]: target`, `src=` / `href=`. */
export function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '').replace(/`[^`\n]*`/g, '');
  const targets = [
    ...[...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!),
    ...[...prose.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!),
  ];
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'));
}

describe('links in the shipped README and docs', () => {
  it('finds links, images and reference definitions, not what code shows', () => {
    const sample = '[a](docs/x.md#y) ![b](docs/p.png) `[c](no.md)`\n[ref]: ../src/z.ts\n<img src="i.svg">\n```md\n[d](no2.md)\n```\n[e](https://x.example) [f](#here)';
    expect(linkTargets(sample)).toEqual(['docs/x.md#y', 'docs/p.png', '../src/z.ts', 'i.svg']);
  });

  it('every relative link and image resolves to a file in the tarball', () => {
    const broken: string[] = [];
    for (const file of shippedMarkdown()) {
      expect(ships(file), `${file} is not in package.json "files"`).toBe(true);
      for (const target of linkTargets(readFileSync(join(root, file), 'utf8'))) {
        const path = normalize(join(dirname(file), decodeURIComponent(target.split('#')[0]!)));
        const relativePath = relative('.', path).replace(/\/$/, '');
        if (!ships(relativePath) || !existsSync(join(root, relativePath))) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
