import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../db/pool.ts';
import { deleteByLastEventBatch } from '../deletion/deletion-sql.ts';
import { eraseIdentifier } from '../deletion/erasure.ts';
import { deleteJourney } from '../deletion/journey-delete.ts';
import type { JourneyFinding } from '../findings/analyze.ts';
import { storeAnalyses } from '../findings/findings-sql.ts';
import { selectPendingJourneys, type PendingJourney } from '../findings/pending-sql.ts';
import { journeyFindings } from '../findings/test-kit.ts';
import { createReadFixture, ingest, keyring, type ReadFixture } from '../query/test-fixtures.ts';
import { groupFindings, storedProblems } from './test-kit.ts';

let fx: ReadFixture;
beforeAll(async () => {
  fx = await createReadFixture();
});
afterAll(async () => fx.close());

/** Six journeys over two environments, a day apart (retention removes the older ones first). */
const JOURNEYS = [0, 1, 2, 3, 4, 5].map((n) => ({ id: `jrn-p${n}`, environment: n < 4 ? 'production' : 'staging', day: 10 + n }));

/** Ingests the journeys that are missing (deleted by an earlier run), and returns every journey as the analyzer would take it. */
async function journeys(): Promise<PendingJourney[]> {
  const present = new Set((await fx.db.pool.query<{ id: string }>('SELECT id FROM journeys')).rows.map((r) => r.id));
  for (const j of JOURNEYS.filter((j) => !present.has(j.id))) {
    await ingest(fx, j.environment, [{ id: `${j.id}-e1`, journeyId: j.id, timestamp: `2026-02-${j.day}T10:00:00.000Z`, input: {}, output: {} }]);
  }
  await fx.db.pool.query('UPDATE journey_findings_pending SET pending = nextval(\'journey_findings_pending_seq\')');
  await fx.db.pool.query(`INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at)
    SELECT project_id, id, nextval('journey_findings_pending_seq'), now() FROM journeys ON CONFLICT DO NOTHING`);
  return selectPendingJourneys(fx.db.pool, 100);
}

// Few texts, so that findings of different journeys fall into the same problems.
const text = fc.constantFrom('a', 'b', 'customer.phone');

type Step =
  | { op: 'store'; journey: number; findings: JourneyFinding[] }
  | { op: 'delete'; journey: number }
  | { op: 'erase'; journey: number }
  | { op: 'retention'; keepFromDay: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('store' as const), journey: fc.nat(5), findings: journeyFindings(text, 6) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), journey: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('erase' as const), journey: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('retention' as const), keepFromDay: fc.integer({ min: 10, max: 16 }) }) },
);

async function run(s: Step, pending: PendingJourney[]): Promise<void> {
  const j = JOURNEYS[s.op === 'retention' ? 0 : s.journey]!;
  if (s.op === 'store') {
    const journey = pending.find((p) => p.id === j.id);
    if (journey === undefined) return; // deleted by an earlier step
    // Each analysis a few minutes later: its observed time moves, as a journey's last event does.
    const analysed = { ...journey, lastEventAt: new Date(journey.lastEventAt.getTime() + s.findings.length * 60_000) };
    await withTransaction(fx.db.pool, (client) => storeAnalyses(client, [{ journey: analysed, findings: s.findings }], new Date()));
  } else if (s.op === 'delete') {
    await deleteJourney(fx.db.pool, fx.projectId, j.id).catch(() => undefined);
  } else if (s.op === 'erase') {
    await eraseIdentifier({ pool: fx.db.pool, keyring }, fx.projectId, { value: `entity-${j.id}` });
  } else {
    const environments = await fx.db.pool.query<{ id: string }>('SELECT id FROM environments WHERE project_id = $1', [fx.projectId]);
    for (const { id } of environments.rows) {
      await deleteByLastEventBatch(fx.db.pool, { projectId: fx.projectId, environmentId: id }, { after: null, before: `2026-02-${s.keepFromDay}T00:00:00Z` }, null, 100);
    }
  }
}

describe('problems', () => {
  it('equal the grouping of the stored findings after any storing, deletion, erasure and retention', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const pending = await journeys();
        for (const s of steps) await run(s, pending);
        expect(await storedProblems(fx.db.pool, fx.projectId)).toEqual(await groupFindings(fx.db.pool, fx.projectId));
      }),
      { numRuns: 40 },
    );
  });
});
