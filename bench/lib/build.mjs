/**
 * Builds dist/ (`npm run build`, exactly what the package publishes) and compiles the MiniMCP bench
 * servers to JS (bench/results/tmp/build), so MiniMCP runs and cold-starts without tsx like every
 * other server. The compiled servers import "minimcp", which Node resolves to dist/.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const BUILD_DIR = fileURLToPath(new URL('../results/tmp/build/', import.meta.url));

export function build() {
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  // tsc writes its output even when another part of the tree has type errors; the servers' own
  // start-up check (cold start) catches a build that does not run.
  execFileSync(process.execPath, [`${root}scripts/build.mjs`], { cwd: root, stdio: 'inherit' });
  try {
    execFileSync(process.execPath, [tsc, '-p', 'bench/tsconfig.json'], { cwd: root, encoding: 'utf8' });
  } catch (error) {
    const head = String(error.stdout ?? '').split('\n').slice(0, 5).join('\n');
    console.error(`tsc -p bench/tsconfig.json reported errors (going on with what it emitted):\n${head}`);
  }
  // tsc copies no .mjs: the shared workloads go next to the compiled servers.
  mkdirSync(`${BUILD_DIR}bench/servers`, { recursive: true });
  copyFileSync(`${root}bench/servers/work.mjs`, `${BUILD_DIR}bench/servers/work.mjs`);
}
