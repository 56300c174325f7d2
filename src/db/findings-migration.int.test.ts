// Migration 0019 stores findings as one row per journey and moves the analyzer's marks out of
// journeys, and 0024 lists the steps a row's findings name once: a database made by the
// migrations before them, holding finding rows and marks, comes out with every finding in its
// order (its steps, and when it was first found) and every mark.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JourneyFinding } from '../findings/analyze.ts';
import { journeyFindings } from '../findings/test-kit.ts';
import { selectFindings } from '../findings/findings-sql.ts';
import { selectPendingJourneys } from '../findings/pending-sql.ts';
import { createEmptyDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { listMigrations, migrate } from './migrate.ts';
import type { Pool } from './pool.ts';

const PER_JOURNEY = 19;
let old: TestDatabase;

beforeAll(async () => {
  old = await createEmptyDatabase();
});
afterAll(async () => old.drop());

/** The schema as the migrations before `version` left it, with their bookkeeping. */
async function migrateBefore(pool: Pool, version: number): Promise<void> {
  await pool.query(`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const migration of listMigrations().filter((m) => m.version < version)) {
    await pool.query(migration.sql);
    await pool.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
  }
}

// Any text, array-literal syntax included (PostgreSQL text holds no NUL).
const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('NULL', '"', '\\', '{a,b}', '', ' ')).filter((v) => !v.includes('\u0000'));
const firstFound = fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2026-03-01T00:00:00Z') });
const oldFindings = fc
  .tuple(journeyFindings(text, PER_JOURNEY), fc.array(firstFound, { minLength: PER_JOURNEY, maxLength: PER_JOURNEY }))
  .map(([findings, times]) => findings.map((finding, i) => ({ ...finding, firstFoundMs: times[i]! })));
type OldFinding = JourneyFinding & { firstFoundMs: number };

/** Every stored finding with its place and times, the same text before and after. */
async function findingFacts(pool: Pool, shape: 'rows' | 'arrays'): Promise<string[]> {
  const columns = `journey_id, environment_id, entity_type, observed_at, kind, path, step_event_id, step_service, step_name, in_transit,
                   from_event_id, from_service, from_name, first_found_at`;
  const source =
    shape === 'rows'
      ? `SELECT ordinal, ${columns} FROM journey_findings`
      : `SELECT u.ordinal - 1 AS ordinal, f.journey_id, f.environment_id, f.entity_type, f.observed_at, u.kind, u.path,
                f.step_ids[u.step_at] AS step_event_id, f.step_services[u.step_at] AS step_service, f.step_names[u.step_at] AS step_name,
                u.in_transit, f.step_ids[u.from_at] AS from_event_id, f.step_services[u.from_at] AS from_service,
                f.step_names[u.from_at] AS from_name, u.first_found_at
           FROM journey_findings f, unnest(f.kind, f.path, f.step_at, f.in_transit, f.from_at, f.first_found_at)
                  WITH ORDINALITY AS u(kind, path, step_at, in_transit, from_at, first_found_at, ordinal)`;
  const result = await pool.query<{ fact: string }>(`SELECT to_jsonb(s)::text AS fact FROM (${source}) s ORDER BY journey_id COLLATE "C", ordinal`);
  return result.rows.map((row) => row.fact);
}

describe('migration 0019', () => {
  it('moves every finding row of a database made by the earlier migrations into one row per journey, in order, with every mark', async () => {
    await migrateBefore(old.pool, 19);
    const projectId = randomUUID();
    const environmentId = randomUUID();
    await old.pool.query(`INSERT INTO projects (id, slug, name) VALUES ($1, 'before-rows', 'Before')`, [projectId]);
    await old.pool.query(`INSERT INTO environments (project_id, id, name, retention_days) VALUES ($1, $2, 'production', 30)`, [projectId, environmentId]);
    const generated = fc.sample(oldFindings, { numRuns: 40, seed: 19 });
    const journeys = generated.map((findings, i) => ({ id: `jrn-${String(i).padStart(2, '0')}`, findings: findings as OldFinding[] }));
    for (const [i, journey] of journeys.entries()) {
      // Every third journey still marked, as ingestion left it.
      await old.pool.query(
        `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, started_at, last_event_at, findings_pending, findings_pending_at)
         VALUES ($1, $2, $3, 'order', 'enc', '2026-02-01T00:00:00Z', $4, $5, $6)`,
        [projectId, journey.id, environmentId, new Date(Date.parse('2026-02-01T00:00:00Z') + i * 1000),
          i % 3 === 0 ? 1000 - i : null, i % 3 === 0 ? new Date(Date.parse('2026-02-02T00:00:00Z') + i) : null],
      );
      // Stored out of order: the ordinal, not the insertion, is the order.
      const order = journey.findings.map((_, ordinal) => ordinal).reverse();
      for (const ordinal of order) {
        const f = journey.findings[ordinal]!;
        await old.pool.query(
          `INSERT INTO journey_findings (project_id, journey_id, ordinal, environment_id, entity_type, kind, path, step_event_id, step_service,
              step_name, in_transit, from_event_id, from_service, from_name, observed_at, first_found_at)
           SELECT $1, $2, $3, $4, 'order', $5, $6, $7, $8, $9, $10, $11, $12, $13, last_event_at, $14 FROM journeys WHERE project_id = $1 AND id = $2`,
          [projectId, journey.id, ordinal, environmentId, f.kind, f.path, f.step?.eventId ?? null, f.step?.service ?? null, f.step?.name ?? null,
            f.inTransit, f.from?.eventId ?? null, f.from?.service ?? null, f.from?.name ?? null, new Date(f.firstFoundMs)],
        );
      }
    }
    const facts = await findingFacts(old.pool, 'rows');
    const marks = (await old.pool.query(`SELECT project_id, id, findings_pending AS pending, findings_pending_at AS at FROM journeys
                                          WHERE findings_pending IS NOT NULL ORDER BY id`)).rows;
    expect(facts.length).toBe(journeys.reduce((n, j) => n + j.findings.length, 0));
    expect(marks.length).toBe(Math.ceil(journeys.length / 3));

    const applied = await migrate(old.pool);
    expect(applied.map((m) => m.version)).toEqual([19, ...listMigrations().filter((m) => m.version > 19).map((m) => m.version)]);

    // Every finding, in its place, with when it was first found and the journey's window.
    expect(await findingFacts(old.pool, 'arrays')).toEqual(facts);
    const read = await selectFindings(old.pool, projectId, journeys.map((j) => j.id), null);
    for (const journey of journeys) {
      expect(read.get(journey.id)).toEqual(journey.findings.map(({ firstFoundMs: _, ...f }) => f));
    }
    // A journey without findings has no row; a row's last_found_at is its latest first_found_at.
    const rows = await old.pool.query<{ journey_id: string; last: Date }>('SELECT journey_id, last_found_at AS last FROM journey_findings ORDER BY journey_id');
    expect(rows.rows.map((r) => r.journey_id)).toEqual(journeys.filter((j) => j.findings.length > 0).map((j) => j.id));
    for (const row of rows.rows) {
      const journey = journeys.find((j) => j.id === row.journey_id)!;
      expect(row.last.getTime()).toBe(Math.max(...journey.findings.map((f) => f.firstFoundMs)));
    }

    // The marks moved, and the analyzer takes them oldest first.
    const moved = (await old.pool.query(`SELECT project_id, journey_id AS id, pending, pending_at AS at FROM journey_findings_pending ORDER BY journey_id`)).rows;
    expect(moved).toEqual(marks);
    const pending = await selectPendingJourneys(old.pool, 100);
    expect(pending.map((p) => p.pending)).toEqual(marks.map((m) => m.pending as number).sort((a, b) => a - b));
    const columns = await old.pool.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'journeys' AND column_name LIKE 'findings%'`);
    expect(columns.rows).toEqual([]);

    // Findings and marks still go with their journey.
    await old.pool.query(`DELETE FROM journeys WHERE project_id = $1`, [projectId]);
    const left = await old.pool.query<{ n: number }>(`SELECT (SELECT count(*) FROM journey_findings) + (SELECT count(*) FROM journey_findings_pending) AS n`);
    expect(Number(left.rows[0]!.n)).toBe(0);
  });
});
