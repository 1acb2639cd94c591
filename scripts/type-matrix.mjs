#!/usr/bin/env node
/**
 * The type-test matrix: what a user compiles, under the tsconfigs users have. The package's declarations
 * (emitted as `npm run build` emits them) are installed as node_modules/minimcp of a scratch app; the
 * README's and docs' TypeScript snippets (scripts/doc-snippets.mjs extracts them) and test/types/*.ts are
 * written into it, and each configuration below compiles all of them in ONE compiler run.
 * Why: the repository's own tsconfig turns exactOptionalPropertyTypes off, and `tsc --init` (5.9 and 7.x)
 * turns it on, so a type that only breaks there (issue 26 item 1) passed every other check.
 *
 *   node scripts/type-matrix.mjs [config-name...]   (default: all; prints each run's errors, exits 1 on any)
 * Run by test/package/type-matrix.test.ts (so by `npm test`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentationFiles, extractSnippets, splitContext } from './doc-snippets.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const compilerBin = (pkg) => join(root, 'node_modules', pkg, 'bin', 'tsc');

/** What `tsc --init` writes, identical in TypeScript 5.9 and 7.0 (emit settings left out: nothing is emitted). */
const TSC_INIT = {
  module: 'nodenext',
  target: 'esnext',
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  strict: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  noUncheckedSideEffectImports: true,
  moduleDetection: 'force',
  skipLibCheck: true,
};
// `tsc --init` writes `"types": []` with a comment to add "node" for a Node project: a server is one.
// The oldest TypeScript the README names (5.4) predates noUncheckedSideEffectImports (5.6).
const { noUncheckedSideEffectImports: _notIn54, ...TSC_INIT_54 } = TSC_INIT;

/** One compiler run each: the name, the compiler package and the options on top of the shared ones. */
export const CONFIGURATIONS = [
  { name: 'tsc --init, TypeScript 5.9', compiler: 'typescript', options: TSC_INIT },
  { name: 'tsc --init, TypeScript 7', compiler: 'typescript-7', options: TSC_INIT },
  {
    // The flags strict projects add, under the README's other resolution (`bundler`, as a web project has).
    name: 'strictest, bundler, TypeScript 7',
    compiler: 'typescript-7',
    options: {
      ...TSC_INIT,
      module: 'preserve',
      moduleResolution: 'bundler',
      lib: ['esnext', 'dom'],
      noImplicitOverride: true,
      noImplicitReturns: true,
      noFallthroughCasesInSwitch: true,
      allowUnreachableCode: false,
    },
  },
  { name: 'oldest named (5.4), nodenext', compiler: 'typescript-5.4', options: { ...TSC_INIT_54, target: 'es2022' } },
];

/** The snippet files, as doc-snippets.mjs compiles them, keyed by their path inside the app. */
function snippetFiles() {
  const files = new Map();
  for (const block of documentationFiles(root).flatMap(extractSnippets)) {
    // JavaScript blocks are checked by doc-snippets.mjs; a TypeScript user compiles .ts.
    if (block.ext !== '.ts' || block.marker?.kind === 'fragment') continue;
    const folder = join('snippets', `${relative(root, block.file).replaceAll('/', '_')}.L${block.line}`, 'main');
    const { front, extra } = splitContext(block.marker?.kind === 'context' ? block.marker.code : '');
    files.set(join(folder, 'snippet.ts'), front ? `${front}\n${block.code}\n` : `${block.code}\n`);
    for (const { name, text } of extra) files.set(join(folder, name), text);
  }
  return files;
}

/** node_modules/minimcp in `app`: package.json and the declarations, emitted by the compiler the build uses. */
function installDeclarations(app) {
  const installed = join(app, 'node_modules', 'minimcp');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module', exports: pkg.exports }));
  execFileSync(process.execPath, [compilerBin('typescript'), '-p', join(root, 'tsconfig.build.json'), '--outDir', join(installed, 'dist')], {
    stdio: 'inherit',
  });
  return pkg;
}

/** Writes the scratch app: the package, the snippets, test/types. Returns its folder and the package's exports. */
export function prepareApp() {
  // Inside the repository's node_modules, so zod, valibot, arktype, express... resolve from there.
  mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
  const app = mkdtempSync(join(root, 'node_modules', '.cache', 'minimcp-type-matrix-'));
  const { exports } = installDeclarations(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'type-matrix-app', private: true, type: 'module' }));
  for (const [path, text] of snippetFiles()) {
    mkdirSync(dirname(join(app, path)), { recursive: true });
    writeFileSync(join(app, path), text);
  }
  cpSync(join(root, 'test', 'types'), join(app, 'types'), { recursive: true });
  return { app, exports };
}

const EVERYTHING = ['snippets/**/*.ts', 'types/**/*.ts'];

/** Compiles the app (or `include` of it) under one configuration; returns the compiler's output lines (none when clean). */
export function compile({ app, exports, include = EVERYTHING }, { name, compiler, options }) {
  // Deno's snippets import `npm:minimcp/...`: the same declarations.
  const paths = Object.fromEntries(Object.entries(exports).map(([key, target]) => [key.replace(/^\./, 'npm:minimcp'), [`./node_modules/minimcp/${target.types}`]]));
  const config = { compilerOptions: { ...options, types: ['node'], noEmit: true, paths }, include };
  const file = join(app, `tsconfig.${name.replace(/\W+/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(config, null, 2));
  const run = spawnSync(process.execPath, [compilerBin(compiler), '-p', file, '--pretty', 'false'], { cwd: app, encoding: 'utf8' });
  const output = `${run.stdout}${run.stderr}`.trim();
  if (run.status === 0 && output === '') return [];
  return output ? output.split('\n') : [`${compiler} exited ${run.status}`];
}

export function versionOf(compiler) {
  return JSON.parse(readFileSync(join(root, 'node_modules', compiler, 'package.json'), 'utf8')).version;
}

if (process.argv[1] && basename(process.argv[1]) === basename(fileURLToPath(import.meta.url))) {
  const wanted = process.argv.slice(2);
  const prepared = prepareApp();
  let failed = false;
  try {
    const count = readdirSync(join(prepared.app, 'snippets')).length;
    for (const configuration of CONFIGURATIONS.filter((c) => wanted.length === 0 || wanted.includes(c.name))) {
      const started = Date.now();
      const errors = compile(prepared, configuration);
      const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
      console.log(`${errors.length ? 'FAIL' : 'ok  '} ${configuration.name} (${configuration.compiler} ${versionOf(configuration.compiler)}, ${took})`);
      for (const line of errors) console.log(`     ${line}`);
      failed ||= errors.length > 0;
    }
    console.log(`${count} README/docs snippets and test/types/ under each configuration.`);
  } finally {
    rmSync(prepared.app, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}
