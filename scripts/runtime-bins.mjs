// Where the runtime binaries pinned in runtimes/ live, and the flags Deno needs to serve on
// loopback: shared by `npm run test:runtimes` (scripts/runtimes.mjs) and the benchmark's per-runtime
// scenario (bench/scenarios/runtimes.mjs).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BINS = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'runtimes/node_modules');

export const RUNTIME_BINS = {
  node22: join(BINS, 'node22/bin/node'),
  node24: join(BINS, 'node24/bin/node'),
  bun: join(BINS, '@oven/bun-linux-x64/bin/bun'),
  deno: join(BINS, '@deno/linux-x64-glibc/deno'),
  workerd: join(BINS, '@cloudflare/workerd-linux-64/bin/workerd'),
};

/** `deno run` with loopback network, env and file reads only. */
export const DENO_RUN = ['run', '--allow-net=127.0.0.1', '--allow-env', '--allow-read'];
