import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createReadFixture, get, ingest, type EventInput, type ReadFixture } from '../query/test-fixtures.ts';
import type { Analyzer } from './analyzer.ts';
import { drainAll, quietAnalyzer, storedFindings } from './test-kit.ts';

/**
 * The analyzer's lost and changed findings are the forensics routes' verdicts: for random
 * journeys, exactly the lost and changed rows of GET /v1/journeys/:journeyId/changes, every
 * step of each, in its order.
 */

let fx: ReadFixture;
let analyzer: Analyzer;
let serial = 0;

beforeAll(async () => {
  fx = await createReadFixture();
  analyzer = quietAnalyzer(fx.db.pool);
});
afterAll(async () => {
  await analyzer.stop();
  await fx.close();
});

const value = fc.oneof(fc.constantFrom(null, 'x', 'y', '[REDACTED]', 1, 2), fc.constant({ n: 1 }));
const payload = fc.option(
  fc.dictionary(fc.constantFrom('name', 'phone', 'email'), fc.oneof(value, fc.dictionary(fc.constantFrom('phone', 'city'), value, { maxKeys: 2 })), { maxKeys: 3 }),
  { nil: null, freq: 4 },
);
const step = fc.record({ input: payload, output: payload, service: fc.constantFrom('a', 'b') });

interface RouteChange {
  path: string;
  kind: string;
  steps: Array<{ eventId: string; service: string; name: string; inTransit: boolean; from: unknown }>;
}

describe('analyzer verdicts', () => {
  it('equal the forensics routes on random journeys', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const journeyId = `jrn-prop-${serial++}`;
        const events: EventInput[] = steps.map((s, index) => ({
          id: `${journeyId}-${index}`,
          journeyId,
          timestamp: new Date(Date.UTC(2026, 1, 10, 10, 0, index)).toISOString(),
          service: s.service,
          name: `step-${index}`,
          operation: 'transformed',
          ...(s.input === null ? {} : { input: s.input }),
          ...(s.output === null ? {} : { output: s.output }),
        }));
        await ingest(fx, 'production', events);
        await drainAll(analyzer, fx.db.pool);
        const found = (await storedFindings(fx.db.pool, fx.projectId, journeyId)).filter((f) => f.kind === 'lost' || f.kind === 'changed');

        const response = await get(fx, ADMIN, `/v1/journeys/${journeyId}/changes`);
        expect(response.statusCode).toBe(200);
        const changes = (response.json() as { data: { changes: RouteChange[] } }).data.changes;
        const expected = changes
          .filter((c) => c.kind === 'lost' || c.kind === 'changed')
          .flatMap((c) => c.steps.map((s) => ({ kind: c.kind, path: c.path, step: { eventId: s.eventId, service: s.service, name: s.name }, inTransit: s.inTransit, from: s.from })));
        expect(found).toEqual(expected);

      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
