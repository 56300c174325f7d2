// The problems triggers' cost on the analyzer's writes: a findings row rewritten with the same
// problem-relevant content (the analyzer re-storing an unchanged journey) must not read or write
// the problem tables at all, while a real change still regroups (docs/decisions.md, "Cheaper problem upkeep").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../db/pool.ts';
import { createReadFixture, ingest, type ReadFixture } from '../query/test-fixtures.ts';
import { groupFindings, storedProblems } from './test-kit.ts';

let fx: ReadFixture;
beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', [{ id: 'up-e1', journeyId: 'jrn-up', timestamp: '2026-02-10T10:00:00.000Z', input: {}, output: {} }]);
  await fx.db.pool.query(
    `INSERT INTO journey_findings (project_id, journey_id, environment_id, entity_type, observed_at, last_found_at, kind, path, step_at, in_transit,
        from_at, step_ids, step_services, step_names, first_found_at)
     SELECT project_id, id, environment_id, entity_type, last_event_at, now(), ARRAY['lost', 'changed'], ARRAY['customer.phone', 'total'],
            ARRAY[1, 1]::int2[], ARRAY[false, false], ARRAY[NULL, NULL]::int2[], ARRAY['up-e1'], ARRAY['svc'], ARRAY['step'], ARRAY[now(), now()]
       FROM journeys WHERE project_id = $1 AND id = 'jrn-up'`,
    [fx.projectId],
  );
});
afterAll(async () => fx.close());

/** Reads and writes of the problem tables by the current transaction so far. */
async function problemTableWork(client: { query: (sql: string) => Promise<{ rows: Array<{ work: number }> }> }): Promise<number> {
  const { rows } = await client.query(
    `SELECT COALESCE(sum(COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) + n_tup_ins + n_tup_upd + n_tup_del), 0)::int AS work
       FROM pg_stat_xact_user_tables WHERE relname IN ('problems', 'problem_journeys', 'project_releases')`,
  );
  return rows[0]!.work;
}

describe('problem upkeep', () => {
  it('an update that leaves a journey\'s findings as they were touches no problem table', async () => {
    const work = await withTransaction(fx.db.pool, async (client) => {
      // The counters may still hold this connection's earlier transactions (flushed lazily): a difference.
      const before = await problemTableWork(client);
      await client.query(`UPDATE journey_findings SET last_found_at = now() + interval '1 minute', first_found_at = first_found_at WHERE journey_id = 'jrn-up'`);
      return (await problemTableWork(client)) - before;
    });
    expect(work).toBe(0);
    expect(await storedProblems(fx.db.pool, fx.projectId)).toEqual(await groupFindings(fx.db.pool, fx.projectId));
  });

  it('an update that changes a finding regroups only through the difference, counts equal to the findings', async () => {
    await fx.db.pool.query(`UPDATE journey_findings SET path = ARRAY['customer.phone', 'subtotal'] WHERE journey_id = 'jrn-up'`);
    const stored = await storedProblems(fx.db.pool, fx.projectId);
    expect(stored).toEqual(await groupFindings(fx.db.pool, fx.projectId));
    expect(Object.keys(stored)).toHaveLength(2);
    await fx.db.pool.query(`UPDATE journey_findings SET observed_at = observed_at + interval '1 hour' WHERE journey_id = 'jrn-up'`);
    expect(await storedProblems(fx.db.pool, fx.projectId)).toEqual(await groupFindings(fx.db.pool, fx.projectId));
  });
});
