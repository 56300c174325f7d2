import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The SDK from source, as tsconfig's `paths` says; the published build lives in packages/node/dist.
    alias: { '@jtrace/node': fileURLToPath(new URL('./packages/node/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers only fight over them and over PostgreSQL.
    pool: 'forks',
    maxWorkers: 2,
  },
});
