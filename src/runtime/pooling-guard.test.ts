import { describe, expect, it } from 'vitest';
import type { Pool } from '../db/pool.ts';
import type { PoolingMode } from '../db/pooling-mode.ts';
import { requireSessionPooling } from './pooling-guard.ts';

const pool = {} as Pool;
const logger = { warn: () => {} };
const unreachable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

describe('requireSessionPooling', () => {
  it('passes session pooling and refuses transaction and statement pooling, naming the mode and why', async () => {
    const guard = await requireSessionPooling(pool, { logger, onIncompatible: () => {}, detect: async () => 'session' });
    guard.stop();
    for (const mode of ['transaction', 'statement'] as const) {
      const refused = requireSessionPooling(pool, { logger, onIncompatible: () => {}, detect: async () => mode });
      await expect(refused).rejects.toThrow(`${mode} pooling mode (PgBouncer pool_mode = ${mode})`);
      await expect(refused).rejects.toThrow(/session advisory locks.*named prepared statements.*pool_mode = session/);
    }
  });

  it('starts when the database cannot be reached, and stops the process once a check finds transaction pooling', async () => {
    const answers: Array<PoolingMode | Error> = [unreachable];
    const warnings: string[] = [];
    let found: string | null = null;
    const guard = await requireSessionPooling(pool, {
      logger: { warn: (message: string) => void warnings.push(message) },
      onIncompatible: (message) => (found = message),
      detect: async () => {
        const next = answers.shift() ?? 'transaction';
        if (next instanceof Error) throw next;
        return next;
      },
    });
    expect(warnings).toEqual(['the database could not be reached to check its pooling mode; checking again every 5 s']);
    expect(found).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(found).toContain('transaction pooling mode');
    guard.stop();
  }, 10_000);

  it('rethrows a failure that is not an unreachable database', async () => {
    await expect(requireSessionPooling(pool, { logger, onIncompatible: () => {}, detect: async () => Promise.reject(new Error('boom')) })).rejects.toThrow('boom');
  });
});
