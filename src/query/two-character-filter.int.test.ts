// The journey list's q of two characters (migration 0018): answered through the index of each
// value's two-character substrings, with exactly the matches of the substring test.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journeyListStatement } from './journeys-sql.ts';
import { ADMIN, createReadFixture, get, ingest, urlWith, type ReadFixture } from './test-fixtures.ts';

// Few characters, so that pairs recur; LIKE's own %, _ and \ among them.
const ALPHABET = ['a', 'B', 'z', 'Q', '%', '_', '\\', ' ', 'é', '1'];
let fixture: ReadFixture;
const labels = new Map<string, string>();
const aliases = new Map<string, string>();

function text(seed: number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[(seed * 31 + i * 17 + ((seed * i) % 7)) % ALPHABET.length];
  return out;
}

beforeAll(async () => {
  fixture = await createReadFixture();
  const events = Array.from({ length: 60 }, (_, n) => {
    const journeyId = `jrn-${String(n).padStart(2, '0')}`;
    const label = text(n, 3 + (n % 6));
    labels.set(journeyId, label);
    const alias = n % 3 === 0 ? `${text(n + 100, 4)}@x` : null;
    if (alias !== null) aliases.set(journeyId, alias);
    return {
      id: `evt-${n}`,
      journeyId,
      timestamp: '2026-03-01T10:00:00.000Z',
      journeyLabel: label,
      ...(alias !== null ? { aliases: { email: alias }, displayableAliases: ['email'] } : {}),
    };
  });
  await ingest(fixture, 'production', events);
});
afterAll(async () => {
  await fixture.close();
});

async function listed(q: string): Promise<string[]> {
  const response = await get(fixture, ADMIN, urlWith('/v1/journeys', [['q', q], ['limit', '100'], ['since', '2026-01-01T00:00:00Z']]));
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().data.items as Array<{ journeyId: string }>).map((item) => item.journeyId).sort();
}

function expected(q: string): string[] {
  const needle = q.toLowerCase();
  return [...labels.keys()]
    .filter((id) => labels.get(id)!.toLowerCase().includes(needle) || (aliases.get(id)?.toLowerCase().includes(needle) ?? false))
    .sort();
}

describe('journey list, q of two characters', () => {
  it('lists exactly the journeys whose label or displayable alias contains q, ignoring case', async () => {
    await fc.assert(
      // q is trimmed: a pair with a space at either end is a shorter q.
      fc.asyncProperty(fc.constantFrom(...ALPHABET.filter((c) => c !== ' ')), fc.constantFrom(...ALPHABET.filter((c) => c !== ' '), '@', 'x', 'Z'), async (a, b) => {
        expect(await listed(a + b)).toEqual(expected(a + b));
      }),
      { numRuns: 60 },
    );
  });

  it('is answered by the index of two-character substrings', async () => {
    const { sql, values } = journeyListStatement(
      {
        projectId: fixture.projectId, environmentId: null, sinceUs: null, untilUs: null, status: null, service: null,
        entityType: null, finding: null, after: null, take: 26,
      },
      'zq',
    );
    const client = await fixture.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL statement_timeout = 0');
      // Enough journeys, none holding the pair, for the planner to weigh the indexes (rolled back).
      await client.query(
        `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, started_at, last_event_at, label)
         SELECT j.project_id, 'bulk-' || n, j.environment_id, 'order', j.entity_id_encrypted, j.started_at, j.last_event_at, 'Order ' || n
           FROM (SELECT * FROM journeys WHERE project_id = $1 LIMIT 1) j, generate_series(1, 3000) n`,
        [fixture.projectId],
      );
      await client.query(
        `INSERT INTO journey_aliases (project_id, journey_id, alias_type, value_encrypted, token, token_key_id, displayable, display_value)
         SELECT $1, 'bulk-' || n, 'email', 'x', 't' || n, 'k', true, 'user' || n || '@example.com' FROM generate_series(1, 3000) n`,
        [fixture.projectId],
      );
      await client.query('ANALYZE journeys, journey_aliases');
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values);
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text, text).toContain('journeys_label_bigrams');
      expect(text).toContain('journey_aliases_display_bigrams');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
