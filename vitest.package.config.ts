import { defineConfig } from 'vitest/config';

// `npm run test:package`: the checks of the packed tarball (test/package/), run by `npm test` after the main suite.
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
