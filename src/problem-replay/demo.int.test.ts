import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../cli/context.ts';
import { runCli } from '../cli/run.ts';
import { testConfig } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { freePort } from '../../test/helpers/free-port.ts';
import { drainAll, quietAnalyzer } from '../findings/test-kit.ts';
import { getProblemReplay, listProblemReplayResults, startProblemReplay } from './batches.ts';
import { demoProblemId } from './demo-destination.ts';
import { keyring, startRunner } from './test-kit.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('jtrace demo', () => {
  it('serves a fixed contact-normalizer while it runs: replaying the phone loss to it keeps the phone on every journey', async () => {
    const port = await freePort();
    const out: string[] = [];
    let verdicts: { requested: number; kept: number; failed: number; errors: string[] } | null = null;
    const ctx: CliContext = {
      env: {},
      io: { out: (line) => out.push(line), err: (line) => out.push(`ERR ${line}`) },
      withServices: (fn) => fn({ pool: db.pool, keyring, config: testConfig({ port: port - 1 }) }),
      // What a newcomer does while the demo runs: the server analyses, then they replay the problem.
      async untilInterrupted() {
        const analyzer = quietAnalyzer(db.pool);
        await drainAll(analyzer, db.pool);
        await analyzer.stop();
        const projectId = (await db.pool.query<{ id: string }>(`SELECT id FROM projects WHERE slug = 'demo'`)).rows[0]!.id;
        const problemId = (await demoProblemId(db.pool, projectId, 'production'))!;
        const destinationId = /destination "[^"]+" ([0-9a-f-]{36})/.exec(out.join('\n'))![1]!;
        const runner = startRunner({ db }, 50);
        try {
          let batch = await startProblemReplay(db.pool, projectId, problemId, { destinationId, journeys: 50, ratePerSecond: 50, concurrency: 4 });
          while (batch.status === 'running') {
            await new Promise((resolve) => setTimeout(resolve, 100));
            batch = (await getProblemReplay(db.pool, projectId, batch.id))!;
          }
          const results = await listProblemReplayResults(db.pool, projectId, batch.id, 'failed', 0, 100);
          verdicts = { requested: batch.requested, kept: batch.counts.kept, failed: batch.counts.failed, errors: results.items.map((r) => r.error?.code ?? '') };
        } finally {
          await runner.stop();
        }
      },
    };
    const code = await runCli(['demo'], ctx);
    expect(out.filter((line) => line.startsWith('ERR'))).toEqual([]);
    expect(code).toBe(0);
    expect(out.join('\n')).toContain(`The fixed contact-normalizer listens on http://127.0.0.1:${port}`);
    expect(verdicts).not.toBeNull();
    expect(verdicts!.errors).toEqual([]);
    expect(verdicts!.requested).toBeGreaterThan(0);
    expect(verdicts!.kept).toBe(verdicts!.requested);
    // The service stopped with the demo.
    await expect(fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
