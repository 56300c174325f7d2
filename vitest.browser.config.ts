import { defineConfig } from 'vitest/config';

// Browser tests: Chromium against the real server and database (npm run test:browser).
export default defineConfig({
  test: {
    include: ['test/browser/**/*.spec.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One Chromium at a time: two cores are shared with the server and PostgreSQL.
    maxWorkers: 1,
    fileParallelism: false,
  },
});
