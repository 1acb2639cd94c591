#!/usr/bin/env node
/**
 * `npm run -s function-length`: fails when a function in src/ is longer than the limit (60 lines),
 * so the request path stays readable one step at a time. Uses the TypeScript parser already installed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = process.argv[2] ?? 'src';
const limit = Number(process.argv[3] ?? 60);
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (path.endsWith('.ts')) files.push(path);
  }
};
walk(root);

const long = [];
for (const file of files) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
      if (lines > limit) long.push(`${file}:${first + 1} ${node.name?.getText() ?? '(anonymous function)'}: ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
if (long.length) {
  console.error(`Functions over ${limit} lines:\n  ${long.join('\n  ')}`);
  process.exit(1);
}
console.log(`No function in ${root}/ is over ${limit} lines (${files.length} files).`);
