import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Pure tests only: no database is started.
export default defineConfig({
  resolve: {
    alias: { '@jtrace/node': fileURLToPath(new URL('./packages/node/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['src/**/*.test.ts', 'web/src/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
    exclude: ['src/**/*.int.test.ts', 'packages/*/src/**/*.int.test.ts', 'node_modules/**'],
  },
});
