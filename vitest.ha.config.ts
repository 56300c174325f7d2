import { defineConfig } from 'vitest/config';

// The deployment scenarios (deploy/ha/, `npm run test:ha`): each starts the whole topology of
// Patroni, etcd, HAProxy and jtrace instances itself, so files run one at a time.
export default defineConfig({
  test: {
    include: ['deploy/ha/**/*.ha.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
