#!/usr/bin/env node
// Fails when a package-lock.json no longer satisfies `npm ci`, offline and in milliseconds.
// Why: a lock regenerated from a node_modules copied from this machine drops other platforms'
// optional packages (Biome's, esbuild's), and `npm ci` on a clean clone then refuses the whole install.
// Checks, for each directory given (default "."): every dependency the package.json names is in the
// lock's root entry with the same range, and every dependency and optional dependency of every locked
// package resolves to a locked package by Node's lookup (own node_modules, then each parent's).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DEP_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

function problemsIn(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  const packages = lock.packages ?? {};
  const root = packages[''] ?? {};
  const problems = [];
  for (const field of DEP_FIELDS) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (root[field]?.[name] !== range) problems.push(`${field}.${name} ${range}: the lock's root says ${root[field]?.[name] ?? 'nothing'}`);
    }
  }
  for (const [path, entry] of Object.entries(packages)) {
    if (path === '' || entry.link) continue;
    for (const field of ['dependencies', 'optionalDependencies']) {
      for (const name of Object.keys(entry[field] ?? {})) {
        if (!resolves(packages, path, name)) problems.push(`${path} needs ${name} (${field}), which the lock lacks`);
      }
    }
  }
  return problems;
}

/** Node's lookup: `<path>/node_modules/<name>`, then the same from each enclosing package up to the root. */
function resolves(packages, path, name) {
  let base = path;
  for (;;) {
    if (packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (base === '') return false;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

const dirs = process.argv.slice(2);
let failed = false;
for (const dir of dirs.length ? dirs : ['.']) {
  const problems = problemsIn(dir);
  if (problems.length === 0) continue;
  failed = true;
  console.error(`${join(dir, 'package-lock.json')} is out of sync (npm ci would refuse it); run \`npm install --package-lock-only\` there:`);
  for (const problem of problems.slice(0, 20)) console.error(`  ${problem}`);
  if (problems.length > 20) console.error(`  …and ${problems.length - 20} more`);
}
process.exit(failed ? 1 : 0);
