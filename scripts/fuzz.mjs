#!/usr/bin/env node
/**
 * Long fuzz runs: the same property tests CI runs (test/fuzz/), with N inputs per property.
 *
 *   node scripts/fuzz.mjs --runs 100000            # every fuzz suite, random seed
 *   node scripts/fuzz.mjs --runs 20000 --only http # one suite (handle | stdio | http)
 *   node scripts/fuzz.mjs --runs 5000 --seed 42    # reproduce a run (the seed is printed on failure)
 *
 * It runs vitest with FUZZ_RUNS / FUZZ_SEED set and no per-test timeout; each property prints a
 * `[fuzz]` line (inputs, replies, error codes, known-bug hits). Exit code: vitest's.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(`--${name}`);
  if (i >= 0) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`--${name}=`));
  return inline?.slice(name.length + 3);
};
if (args.includes('--help') || args.includes('-h')) {
  console.log('usage: node scripts/fuzz.mjs [--runs N] [--seed S] [--only handle|stdio|http]');
  process.exit(0);
}

const runs = Number(option('runs') ?? 10_000);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs must be a positive integer, got ${option('runs')}`);
  process.exit(2);
}
const seed = option('seed');
const only = option('only');
if (only !== undefined && !['handle', 'stdio', 'http'].includes(only)) {
  console.error(`--only must be handle, stdio or http, got ${only}`);
  process.exit(2);
}

const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const target = only ? `test/fuzz/${only}.fuzz.test.ts` : 'test/fuzz';
const env = { ...process.env, FUZZ_RUNS: String(runs) };
if (seed !== undefined) env.FUZZ_SEED = String(Number(seed));
console.log(`[fuzz] ${runs} inputs per property on ${target}${seed === undefined ? ' (random seed)' : ` (seed ${seed})`}`);
const started = Date.now();
const child = spawn(process.execPath, [vitest, 'run', target, '--testTimeout=0', '--hookTimeout=0', '--maxWorkers=1'], { cwd: root, env, stdio: 'inherit' });
child.on('exit', (code, signal) => {
  console.log(`[fuzz] finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(code ?? (signal ? 1 : 0));
});
