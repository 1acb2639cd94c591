/**
 * Issue 17: the `minimcp dev` child built into dist/ loads MiniMCP's index before the user's module, so
 * the warm spare has it ready when a restart comes. A bare `import '../index.js'` was dropped by the
 * bundler (the package says `sideEffects: false`); this runs the built child, not the sources.
 */
import { execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Inside the repository, so the bundle's external imports resolve from its node_modules.
const out = join(root, 'node_modules', '.cache', `dev-child-${process.pid}`);
const MARK = "Symbol.for('minimcp.test.index-loaded')";

beforeAll(() => {
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), out, '--no-types'], { stdio: 'pipe' });
  // Marks the moment the built index finishes loading (a statement after all of its own code).
  appendFileSync(join(out, 'index.js'), `\nglobalThis[${MARK}] = true;\n`);
  mkdirSync(join(out, 'probe'), { recursive: true });
  // The user's module, importing nothing: it reports whether the index was already loaded.
  writeFileSync(join(out, 'probe', 'server.mjs'), `process.send({ type: 'probe', indexLoaded: globalThis[${MARK}] === true });\n`);
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the built minimcp dev child', () => {
  it('started as the warm spare, it has loaded the index before it loads the user module', async () => {
    const child = fork(join(out, 'dev', 'child.js'), [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    try {
      const probe = new Promise<{ indexLoaded: boolean }>((resolve) => {
        child.on('message', (message: { type: string; indexLoaded?: boolean }) => {
          if (message.type === 'probe') resolve(message as { indexLoaded: boolean });
        });
      });
      child.send({ type: 'load', file: join(out, 'probe', 'server.mjs') });
      expect((await probe).indexLoaded).toBe(true);
    } finally {
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    }
  });
});
