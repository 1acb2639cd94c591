import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The packed-tarball checks build and type-check for a minute of CPU: they run after this suite
    // (vitest.package.config.ts), so they do not slow the timing-sensitive tests here.
    exclude: ['test/package/**', '**/node_modules/**'],
    // Says once per run when the Redis and cluster suites skip (no redis-server or nginx here).
    globalSetup: ['test/support/cluster-check.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores here and in CI: integration tests spawn servers, so keep workers few.
    maxWorkers: 2,
  },
});
