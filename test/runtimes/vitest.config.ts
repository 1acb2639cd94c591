import { defineConfig } from 'vitest/config';

// `npm run test:runtimes` runs these once per runtime (scripts/runtimes.mjs starts the server and
// passes RUNTIME_URL); `npm test` does not include them.
export default defineConfig({
  test: {
    include: ['test/runtimes/**/*.rt.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    maxWorkers: 1,
  },
});
