#!/usr/bin/env node
/**
 * What the docs name in the code exists: every repository path (`src/...`, `test/...`, `examples/...`,
 * `scripts/...`, `bench/...`, `bin/...`, `runtimes/...`) written in README.md or docs/*.md is a file or a
 * folder, and every private member a doc names (`#name`, e.g. "Call.#deliver") is declared in src/.
 * Prose about code goes stale silently when a file moves; this makes it loud.
 * Run by test/unit/doc-references.test.ts (so by `npm test`); `node scripts/doc-references.mjs` prints the same.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentationFiles } from './doc-snippets.mjs';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../..');
// A path starts at a top-level folder of the repository and runs to a space, quote, bracket or `:line`.
const PATH = /(?<![\w./-])((?:src|test|examples|scripts|bench|bin|runtimes|conformance)\/[\w./*{},-]*[\w*}])/g;
// Paths the docs name that are not in this repository: made by a run, or in a user's project.
const NOT_OURS = new Set([
  'bench/results/tmp/build', // the benchmark's scratch build (docs/benchmarks.md)
  'bench/results/tmp/profiles', // where bench/profile.mjs leaves its .cpuprofile files (docs/benchmarks.md)
  'test/server.test.ts', // the test `minimcp init` writes into a new project (docs/dev.md)
  'src/dev-scope.ts', // a user's scope module for `minimcp dev --scope` (docs/dev.md)
  'src/caller.ts', // the production recipe's files in a user's project (docs/production.md)
  'src/main.ts',
]);
// A private member: `#name` inside inline code (not a markdown heading, not a URL fragment).
const INLINE_CODE = /`([^`\n]+)`/g;
const PRIVATE = /#([a-zA-Z_]\w*)/g;

/** Every .ts file under `dir`, as text (read once per check). */
function sourceTexts(dir) {
  const texts = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) texts.push(...sourceTexts(path));
    else if (entry.name.endsWith('.ts')) texts.push(readFileSync(path, 'utf8'));
  }
  return texts;
}

/** A path with a glob or brace (`src/primitives/*.ts`, `src/{a,b}.ts`) exists when its folder does. */
function pathExists(root, path) {
  const glob = path.search(/[*{]/);
  const fixed = glob < 0 ? path : path.slice(0, path.lastIndexOf('/', glob) + 1);
  return existsSync(join(root, fixed.replace(/\.$/, '')));
}

/** Problems as `file:line: message`, for `markdownFiles`. */
export function missingReferences(markdownFiles = documentationFiles(), root = repoRoot) {
  const sources = sourceTexts(join(root, 'src')).join('\n');
  const declared = (name) => new RegExp(`#${name}\\b\\s*[(=:;!?<]|(?:get|set|async|static)\\s+#${name}\\b`).test(sources);
  const problems = [];
  for (const file of markdownFiles) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, index) => {
        const where = `${relative(root, file)}:${index + 1}`;
        for (const [, path] of text.matchAll(PATH)) {
          if (!NOT_OURS.has(path.replace(/\/$/, '')) && !pathExists(root, path)) problems.push(`${where}: ${path} does not exist`);
        }
        for (const [, code] of text.matchAll(INLINE_CODE)) {
          for (const [, name] of code.matchAll(PRIVATE)) {
            if (!declared(name)) problems.push(`${where}: #${name} is not declared in src/`);
          }
        }
      });
  }
  return problems;
}

if (process.argv[1] && basename(process.argv[1]) === basename(fileURLToPath(import.meta.url))) {
  const problems = missingReferences();
  if (problems.length) {
    console.error(`Documentation that names code which does not exist:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log('Every path and private member the docs name exists.');
}
