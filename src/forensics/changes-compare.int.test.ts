import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, API_KEY, READERS, createReadFixture, get, ingest, urlWith, type Credential, type ReadFixture } from '../query/test-fixtures.ts';
import { contactJourney, everyContactJourney } from './test-journeys.ts';

let fx: ReadFixture;

beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', [
    ...everyContactJourney(),
    {
      id: 'sec-1', journeyId: 'jrn-secret', timestamp: '2026-02-10T10:00:00.000Z',
      input: { token: 'visible', auth: { password: 'hunter2' } },
      output: { token: 'changed', auth: { password: 'hunter3' } },
    },
  ]);
  await ingest(fx, 'staging', contactJourney('jrn-staging', 'kept'));
});
afterAll(async () => fx.close());

interface Change {
  path: string;
  kind: string;
  renamedFrom?: string;
  steps: Array<{ eventId: string; name: string; inTransit: boolean; from: { name: string } | null }>;
  stepCount: number;
}
const changes = async (credential: Credential, journeyId: string) => {
  const response = await get(fx, credential, `/v1/journeys/${encodeURIComponent(journeyId)}/changes`);
  expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
  return (response.json() as { data: { journeyId: string; changes: Change[]; truncated: boolean; changesTruncated: boolean } }).data;
};

describe('GET /v1/journeys/:journeyId/changes', () => {
  it.each(READERS)('lists the lost phone first, then what appeared, with the steps (%s)', async (_label, credential) => {
    const body = await changes(credential, 'jrn-lost');
    expect(body).toMatchObject({ journeyId: 'jrn-lost', truncated: false, changesTruncated: false });
    expect(body.changes[0]).toEqual({
      path: 'customer.phone', kind: 'lost', stepCount: 1,
      steps: [{ eventId: 'jrn-lost-1-normalize', service: 'contacts', name: 'normalize-contact', inTransit: false, from: null }],
    });
    expect(body.changes.map((change) => [change.path, change.kind, change.renamedFrom ?? null])).toEqual([
      ['customer.phone', 'lost', null],
      ['messageId', 'lost', null],
      ['customer', 'renamed', 'contact'],
      // jsonb keeps keys shorter first: tags before crmId.
      ['tags', 'appeared', null],
      ['crmId', 'appeared', null],
      ['messageId', 'appeared', null],
      ['delivered', 'appeared', null],
    ]);
  });

  it('lists a loss between two services as in transit, naming the step it left', async () => {
    const lost = (await changes(API_KEY, 'jrn-transit')).changes.find((change) => change.path === 'customer.phone');
    expect(lost).toMatchObject({ kind: 'lost', steps: [{ name: 'persist', inTransit: true, from: { name: 'normalize-contact' } }] });
  });

  it('never lists a redacted value as a change', async () => {
    const body = await changes(API_KEY, 'jrn-secret');
    expect(body.changes).toEqual([
      { path: 'token', kind: 'changed', stepCount: 1, steps: [expect.objectContaining({ eventId: 'sec-1', inTransit: false })] },
    ]);
    expect(JSON.stringify(body)).not.toContain('hunter');
  });

  it('is not found outside the API key environment', async () => {
    expect((await get(fx, API_KEY, '/v1/journeys/jrn-staging/changes')).statusCode).toBe(404);
    expect((await changes(ADMIN, 'jrn-staging')).changes.length).toBeGreaterThan(0);
  });
});

interface Side {
  index: number;
  eventId: string;
  name: string;
  durationMs: number | null;
}
interface Pair {
  status: string;
  a: Side | null;
  b: Side | null;
  inputDiff: { rows: Array<{ path: string; kind: string }> } | null;
  outputDiff: { rows: Array<{ path: string; kind: string }> } | null;
  differs: boolean;
}
interface Comparison {
  a: { journeyId: string; aliases: Array<{ type: string; displayValue: string }> };
  b: { journeyId: string };
  truncated: { a: boolean; b: boolean };
  pairs: Pair[];
  firstDifference: number | null;
  exactAlignment: boolean;
}
const compare = async (credential: Credential, a: string, b: string) => {
  const response = await get(fx, credential, urlWith('/v1/journeys/compare', [['a', a], ['b', b]]));
  expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
  return (response.json() as { data: Comparison }).data;
};
const shape = (pairs: Pair[]) => pairs.map((pair) => [pair.status, pair.a?.name ?? null, pair.b?.name ?? null]);

describe('GET /v1/journeys/compare', () => {
  it.each(READERS)('sets the run that kept the phone against the run that lost it (%s)', async (_label, credential) => {
    const body = await compare(credential, 'jrn-kept', 'jrn-lost');
    expect(body).toMatchObject({ a: { journeyId: 'jrn-kept' }, b: { journeyId: 'jrn-lost' }, truncated: { a: false, b: false }, exactAlignment: true });
    expect(body.pairs.every((pair) => pair.status === 'matched')).toBe(true);
    expect(body.firstDifference).toBe(1);
    expect(body.pairs[1]!.outputDiff!.rows).toEqual([{ path: 'customer.phone', kind: 'lost', before: '+44 20 7946 0018' }]);
    expect(body.pairs[0]!.differs).toBe(false);
    expect(body.pairs[2]).toMatchObject({ a: { durationMs: 31 }, b: { durationMs: 31 } });
  });

  it('shows a step missing from one journey', async () => {
    const body = await compare(API_KEY, 'jrn-kept', 'jrn-missing');
    expect(shape(body.pairs)).toEqual([
      ['matched', 'receive', 'receive'],
      ['matched', 'normalize-contact', 'normalize-contact'],
      ['matched', 'persist', 'persist'],
      ['only_a', 'publish', null],
      ['matched', 'consume', 'consume'],
      ['matched', 'deliver', 'deliver'],
    ]);
    expect(body.firstDifference).toBe(3);
  });

  it('shows an extra retry', async () => {
    const body = await compare(API_KEY, 'jrn-kept', 'jrn-retry');
    expect(shape(body.pairs).map(([status]) => status)).toEqual(['matched', 'matched', 'matched', 'only_b', 'matched', 'matched', 'matched']);
    expect(body.pairs[3]!.b).toMatchObject({ index: 3, name: 'persist', durationMs: 45 });
  });

  it('shows a reordered pair as moved, diffed against its counterpart', async () => {
    const body = await compare(API_KEY, 'jrn-kept', 'jrn-reordered');
    expect(shape(body.pairs)).toEqual([
      ['matched', 'receive', 'receive'],
      ['matched', 'normalize-contact', 'normalize-contact'],
      ['matched', 'publish', 'publish'],
      ['moved', 'persist', 'persist'],
      ['matched', 'consume', 'consume'],
      ['matched', 'deliver', 'deliver'],
    ]);
    expect(body.pairs[3]).toMatchObject({ a: { index: 2 }, b: { index: 3 }, differs: true, inputDiff: { rows: [] } });
  });

  it('masks alias values as the journey read does', async () => {
    const body = await compare(API_KEY, 'jrn-kept', 'jrn-lost');
    const read = (await get(fx, API_KEY, '/v1/journeys/jrn-kept')).json() as { data: unknown };
    expect(body.a).toEqual(read.data);
    expect(JSON.stringify(body.a)).not.toContain('ada@example.com');
  });

  it('needs both journeys in the caller scope', async () => {
    expect((await get(fx, API_KEY, urlWith('/v1/journeys/compare', [['a', 'jrn-kept'], ['b', 'jrn-staging']]))).statusCode).toBe(404);
    expect((await get(fx, API_KEY, urlWith('/v1/journeys/compare', [['a', 'jrn-staging'], ['b', 'jrn-kept']]))).statusCode).toBe(404);
    expect((await compare(ADMIN, 'jrn-kept', 'jrn-staging')).firstDifference).toBeNull();
  });
});
