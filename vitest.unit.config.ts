import { defineConfig } from 'vitest/config';

// Pure tests only: no database is started.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'web/src/**/*.test.ts'],
    exclude: ['src/**/*.int.test.ts', 'node_modules/**'],
  },
});
