// The journey list's q where q shares trigrams with nearly every value (migration 0023,
// src/query/rare-substring.ts): the same answers, the index probed with q's uncommon part only.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCommonTrigrams } from './common-trigrams.ts';
import { journeyListStatement } from './journeys-sql.ts';
import { likeTrigrams } from './rare-substring.ts';
import { ADMIN, createReadFixture, get, ingest, urlWith, type ReadFixture } from './test-fixtures.ts';

const NAMES = ['Alice Smith', 'Bruno Díaz', 'Chloé Martin', 'Dmitri 100%_Sure'];
let fixture: ReadFixture;
const values = new Map<string, string[]>();

beforeAll(async () => {
  fixture = await createReadFixture();
  const events = Array.from({ length: 250 }, (_, n) => {
    const journeyId = `jrn-${String(n).padStart(3, '0')}`;
    const label = `Order ${n} for ${NAMES[n % NAMES.length]}`;
    const email = `user${n}@example.com`;
    values.set(journeyId, [label, email]);
    return { id: `evt-${n}`, journeyId, timestamp: '2026-03-01T10:00:00.000Z', journeyLabel: label, aliases: { email }, displayableAliases: ['email'] };
  });
  await ingest(fixture, 'production', events);
  await fixture.db.pool.query('ANALYZE journeys, journey_aliases');
});
afterAll(async () => {
  await fixture.close();
});

async function listed(q: string): Promise<string[]> {
  const response = await get(fixture, ADMIN, urlWith('/v1/journeys', [['q', q], ['limit', '100'], ['since', '2026-01-01T00:00:00Z']]));
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().data.items as Array<{ journeyId: string }>).map((item) => item.journeyId);
}

/** The first page: one lastEventAt for all, so journey ids in descending byte order. */
function expected(q: string): string[] {
  const needle = q.trim().toLowerCase();
  const ids = [...values].filter(([, texts]) => texts.some((text) => text.toLowerCase().includes(needle))).map(([id]) => id);
  return ids.sort().reverse().slice(0, 100);
}

describe('common trigrams of labels and alias values', () => {
  it('are read from the statistics ANALYZE keeps', async () => {
    const common = await readCommonTrigrams(fixture.db.pool);
    expect([...common.alias]).toEqual(expect.arrayContaining(['use', 'ser', 'exa', 'com']));
    expect(common.alias.has('142')).toBe(false);
    expect([...common.label]).toEqual(expect.arrayContaining(['ord', 'for']));
  });

  it('are the trigrams pg_trgm extracts, padding included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: fc.constantFrom('a', 'B', '7', ' ', '.', '@', '-', 'z'), maxLength: 12 }), { minLength: 1, maxLength: 20 }), async (texts) => {
        const shown = await fixture.db.pool.query<{ t: string[] }>('SELECT show_trgm(x) AS t FROM unnest($1::text[]) AS x', [texts]);
        texts.forEach((text, i) => {
          // `#` on either side stands for a boundary that is not the pattern's `%`: both ends padded, as show_trgm pads.
          expect([...new Set(likeTrigrams(`#${text}#`))].sort()).toEqual([...shown.rows[i]!.t].sort());
        });
      }),
      { numRuns: 40 },
    );
  });

  it('probe the alias index with the uncommon part of q', async () => {
    const common = await readCommonTrigrams(fixture.db.pool);
    const scan = {
      projectId: fixture.projectId, environmentId: null, sinceUs: null, untilUs: null, status: null, service: null,
      entityType: null, finding: null, after: null, take: 51,
    };
    // use, ser, er1 (user1, user10 to user199), r14 and "42 " (user42, user142, user242) are common; 142 is not.
    const { sql, values: parameters } = journeyListStatement(scan, 'USER142@', common);
    expect(parameters).toContain('%142%');
    expect(sql).toContain('strpos(lower(a.display_value)');
    expect(journeyListStatement(scan, 'USER142@').values).not.toContain('%142%');
  });

  it('leave the answers of the list exactly those of the substring test', async () => {
    const pieces = [...values.values()].flat();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pieces), fc.nat(), fc.nat(), fc.boolean(), async (text, a, b, upper) => {
        const start = a % text.length;
        const end = Math.min(text.length, start + 3 + (b % 12));
        const q = text.slice(start, end);
        if (q.trim().length < 3) return;
        const asked = upper ? q.toUpperCase() : q;
        expect(await listed(asked)).toEqual(expected(asked));
      }),
      { numRuns: 80 },
    );
    for (const q of ['user142@', 'USER42@', 'user1', 'r14', '100%_', 'xample.co', 'nobody@']) expect(await listed(q)).toEqual(expected(q));
  });
});
