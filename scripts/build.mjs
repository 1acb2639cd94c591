#!/usr/bin/env node
/**
 * `npm run build`: dist/ as published. esbuild bundles each subpath export into one file (shared code
 * goes to dist/chunks/, so every class exists once), because Node loads one file much faster than
 * the ~50 small modules tsc would emit: that is most of a server's cold start. tsc emits the .d.ts
 * files next to them. Dependencies and node: builtins stay imports.
 *
 *   node scripts/build.mjs [outDir] [--no-types]   (default dist/; the package test builds into a temporary copy;
 *   --no-types skips the .d.ts files, for tests that only run the JS)
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const args = process.argv.slice(2);
const outDir = resolve(args.find((arg) => !arg.startsWith('--')) ?? `${root}dist`);

// Each export's JS file (dist/x/y.js) comes from src/x/y.ts.
const entryPoints = Object.values(pkg.exports).map((target) => `${root}${target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')}`);
// The `minimcp` command (bin/minimcp.mjs) and the child process `minimcp dev` starts.
entryPoints.push(`${root}src/dev/cli.ts`, `${root}src/dev/child.ts`);

rmSync(outDir, { recursive: true, force: true });
await build({
  entryPoints,
  outbase: `${root}src`,
  outdir: outDir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  packages: 'external',
  external: ['node:*'],
  chunkNames: 'chunks/[name]-[hash]',
  // Not minified and without source maps: the bundle reads like the sources, and maps would double
  // the installed size.
  sourcemap: false,
  logLevel: 'warning',
});
// The playground page is served as is by `minimcp dev`, next to dist/dev/cli.js.
copyFileSync(`${root}src/dev/playground.html`, `${outDir}/dev/playground.html`);
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
if (!args.includes('--no-types')) execFileSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`, '--outDir', outDir], { stdio: 'inherit' });
