import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  API_KEY,
  NOW_MS,
  READERS,
  createReadFixture,
  get,
  ingest,
  refusal,
  urlWith,
  type Credential,
  type EventInput,
  type ReadFixture,
} from './test-fixtures.ts';

let fx: ReadFixture;
const SINCE: [string, string] = ['since', '2026-01-01T00:00:00Z'];

const at = (day: number, hour = 10) => `2026-02-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000Z`;

beforeAll(async () => {
  fx = await createReadFixture();
  const production: EventInput[] = [
    { id: 'a1', journeyId: 'jrn-a', timestamp: at(1), journeyLabel: '100% Sure_thing', entity: { type: 'order', id: 'secret-entity' } },
    { id: 'a2', journeyId: 'jrn-a', timestamp: at(1, 11), operation: 'completed', name: 'finish', service: 'billing' },
    { id: 'b1', journeyId: 'jrn-b', timestamp: at(2), journeyLabel: 'back\\slash ÉCOLE', entity: { type: 'invoice', id: 'INV-1' } },
    { id: 'b2', journeyId: 'jrn-b', timestamp: at(2, 11), error: { message: 'boom' }, name: 'charge' },
    {
      id: 'c1',
      journeyId: 'jrn-c',
      timestamp: at(3),
      entity: { type: ' padded ', id: 'PAD-1' },
      aliases: { email: 'carol@example.com', phone: 'hidden-phone-number', nul: 'nul\u0000value' },
      displayableAliases: ['email', 'nul'],
    },
    { id: 'd1', journeyId: 'jrn-d', timestamp: at(4), entity: { type: 'Order', id: 'ORD-D' }, journeyLabel: 'Plain label' },
  ];
  await ingest(fx, 'production', production);
  await ingest(fx, 'staging', [{ id: 's1', journeyId: 'jrn-s', timestamp: at(5), journeyLabel: 'Staging label' }]);
});
afterAll(async () => fx.close());

const list = (credential: Credential, params: Array<[string, string]>) => get(fx, credential, urlWith('/v1/journeys', params));
const ids = (response: { json(): unknown }) => (response.json() as { data: { items: Array<{ journeyId: string }> } }).data.items.map((i) => i.journeyId);

describe('GET /v1/journeys: filters', () => {
  it('lists the window in lastEventAt desc order, within the caller scope', async () => {
    expect(ids(await list(API_KEY, [SINCE]))).toEqual(['jrn-d', 'jrn-c', 'jrn-b', 'jrn-a']);
    expect(ids(await list(ADMIN, [SINCE]))).toEqual(['jrn-s', 'jrn-d', 'jrn-c', 'jrn-b', 'jrn-a']);
    expect(ids(await list(ADMIN, [SINCE, ['environment', 'staging']]))).toEqual(['jrn-s']);
    expect(ids(await list(API_KEY, [SINCE, ['environment', 'staging']]))).toEqual([]);
    expect(ids(await list(ADMIN, [SINCE, ['environment', 'unknown']]))).toEqual([]);
  });

  it('applies the half-open window on lastEventAt', async () => {
    expect(ids(await list(API_KEY, [['since', at(2, 11)], ['until', at(4)]]))).toEqual(['jrn-c', 'jrn-b']);
    expect(ids(await list(API_KEY, [['since', '2026-02-02T11:00:00.001Z']]))).toEqual(['jrn-d', 'jrn-c']);
  });

  it('filters by status; empty status is any', async () => {
    expect(ids(await list(API_KEY, [SINCE, ['status', 'completed']]))).toEqual(['jrn-a']);
    expect(ids(await list(API_KEY, [SINCE, ['status', 'failed']]))).toEqual(['jrn-b']);
    expect(ids(await list(ADMIN, [SINCE, ['status', 'active']]))).toEqual(['jrn-s', 'jrn-d', 'jrn-c']);
    expect(ids(await list(ADMIN, [SINCE, ['status', 'active'], ['environment', 'production']]))).toEqual(['jrn-d', 'jrn-c']);
    expect(ids(await list(API_KEY, [SINCE, ['status', '']]))).toHaveLength(4);
  });

  it('filters by service: journeys with at least one event by it', async () => {
    expect(ids(await list(API_KEY, [SINCE, ['service', 'billing']]))).toEqual(['jrn-a']);
    expect(ids(await list(API_KEY, [SINCE, ['service', 'checkout']]))).toEqual(['jrn-d', 'jrn-c', 'jrn-b', 'jrn-a']);
    expect(ids(await list(API_KEY, [SINCE, ['service', 'Billing']]))).toEqual([]);
  });

  it('filters by exact entity type after trimming the filter; blank is any', async () => {
    expect(ids(await list(API_KEY, [SINCE, ['entityType', 'order']]))).toEqual(['jrn-a']);
    expect(ids(await list(API_KEY, [SINCE, ['entityType', '  Order ']]))).toEqual(['jrn-d']);
    // A type stored with surrounding white space cannot be matched.
    expect(ids(await list(API_KEY, [SINCE, ['entityType', ' padded ']]))).toEqual([]);
    expect(ids(await list(API_KEY, [SINCE, ['entityType', '   ']]))).toHaveLength(4);
    expect(ids(await list(API_KEY, [SINCE, ['entityType', 'x'.repeat(128)]]))).toEqual([]);
    expect(ids(await list(API_KEY, [SINCE, ['entityType', ` ${'\u{1D11E}'.repeat(128)} `]]))).toEqual([]);
  });

  it('matches q as a case-insensitive substring of the label or a displayable alias value', async () => {
    expect(ids(await list(API_KEY, [SINCE, ['q', 'sure']]))).toEqual(['jrn-a']);
    expect(ids(await list(API_KEY, [SINCE, ['q', '  LABEL ']]))).toEqual(['jrn-d']);
    expect(ids(await list(ADMIN, [SINCE, ['q', 'label']]))).toEqual(['jrn-s', 'jrn-d']);
    expect(ids(await list(API_KEY, [SINCE, ['q', 'CAROL@']]))).toEqual(['jrn-c']);
    expect(ids(await list(API_KEY, [SINCE, ['q', 'école']]))).toEqual(['jrn-b']);
  });

  it('reads %, _ and \\ in q as ordinary characters', async () => {
    expect(ids(await list(API_KEY, [SINCE, ['q', '0% s']]))).toEqual(['jrn-a']);
    expect(ids(await list(API_KEY, [SINCE, ['q', 'e_t']]))).toEqual(['jrn-a']);
    expect(ids(await list(API_KEY, [SINCE, ['q', 'k\\s']]))).toEqual(['jrn-b']);
    expect(ids(await list(API_KEY, [SINCE, ['q', '1_0']]))).toEqual([]);
    expect(ids(await list(API_KEY, [SINCE, ['q', '%%']]))).toEqual([]);
    expect(ids(await list(API_KEY, [SINCE, ['q', 'k%s']]))).toEqual([]);
  });

  it('never matches q against an entity id, a masked alias, a NUL-holding alias, a journey id or an entity type', async () => {
    for (const q of ['secret-entity', 'hidden-phone', 'nul', 'jrn-a', 'invoice']) {
      expect(ids(await list(API_KEY, [SINCE, ['q', q]])), q).toEqual([]);
    }
  });

  it('treats a blank q as no filter and accepts 2 and 200 code points', async () => {
    expect(ids(await list(API_KEY, [SINCE, ['q', '   ']]))).toHaveLength(4);
    expect((await list(API_KEY, [SINCE, ['q', ' ab ']])).statusCode).toBe(200);
    expect((await list(API_KEY, [SINCE, ['q', '\u{1D11E}'.repeat(200)]])).statusCode).toBe(200);
  });

  it('combines filters', async () => {
    expect(ids(await list(ADMIN, [SINCE, ['q', 'label'], ['environment', 'production'], ['status', 'active'], ['service', 'checkout']]))).toEqual(['jrn-d']);
  });
});

describe('GET /v1/journeys: paging', () => {
  it('pages with limit and cursor, with and without filters', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const params: Array<[string, string]> = [SINCE, ['limit', '2']];
      if (cursor) params.push(['cursor', cursor]);
      const response = await list(ADMIN, params);
      seen.push(...ids(response));
      cursor = response.json().data.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['jrn-s', 'jrn-d', 'jrn-c', 'jrn-b', 'jrn-a']);
    const filtered = await list(ADMIN, [SINCE, ['limit', '1'], ['status', 'active']]);
    expect(ids(filtered)).toEqual(['jrn-s']);
    const next = await list(ADMIN, [SINCE, ['status', 'active'], ['cursor', filtered.json().data.nextCursor]]);
    expect(ids(next)).toEqual(['jrn-d', 'jrn-c']);
  });

  it('does not repeat a journey that moved to the top between two pages', async () => {
    const first = await list(API_KEY, [SINCE, ['limit', '2']]);
    expect(ids(first)).toEqual(['jrn-d', 'jrn-c']);
    await ingest(fx, 'production', [{ id: 'a3', journeyId: 'jrn-a', timestamp: at(20) }]);
    const second = await list(API_KEY, [SINCE, ['limit', '2'], ['cursor', first.json().data.nextCursor]]);
    expect(ids(second)).toEqual(['jrn-b']);
    expect(second.json().data.nextCursor).toBeNull();
    expect(ids(await list(API_KEY, [SINCE, ['limit', '1']]))).toEqual(['jrn-a']);
  });

  it('defaults to 25 and reads a limit above 100 as 100', async () => {
    const many: EventInput[] = Array.from({ length: 130 }, (_, i) => ({ id: `m${i}`, journeyId: `many-${String(i).padStart(3, '0')}`, timestamp: at(25) }));
    await ingest(fx, 'staging', many);
    const staging: Credential = { kind: 'api-key', environment: 'staging' };
    const byDefault = await list(staging, [SINCE]);
    expect(ids(byDefault)).toHaveLength(25);
    expect(ids(byDefault)[0]).toBe('many-129');
    const capped = await list(staging, [SINCE, ['limit', '101']]);
    expect(ids(capped)).toHaveLength(100);
    const rest = await list(staging, [SINCE, ['limit', '1000'], ['cursor', capped.json().data.nextCursor]]);
    expect(ids(rest)).toHaveLength(31);
    expect(rest.json().data.nextCursor).toBeNull();
  });
});

describe.each(READERS)('GET /v1/journeys refusals (%s)', (_name, credential) => {
  it.each([
    ['since missing', []],
    ['since empty', [['since', '']]],
    ['since malformed', [['since', '2026-02-01T10:00']]],
    ['since without a time zone', [['since', '2026-02-01T10:00:00.000']]],
    ['since impossible', [['since', '2026-02-30T00:00:00Z']]],
    ['since lower-case', [['since', '2026-02-01t00:00:00z']]],
    ['since more than 60 s ahead', [['since', new Date(NOW_MS + 60_001).toISOString()]]],
    ['until malformed', [SINCE, ['until', 'tomorrow']]],
    ['until impossible', [SINCE, ['until', '2026-04-31T00:00:00Z']]],
    ['until equal to since', [SINCE, ['until', '2026-01-01T00:00:00.000Z']]],
    ['until before since', [SINCE, ['until', '2025-12-31T23:59:59Z']]],
    ['status unknown', [SINCE, ['status', 'done']]],
    ['status in another case', [SINCE, ['status', 'Active']]],
    ['entityType over 128', [SINCE, ['entityType', 'x'.repeat(129)]]],
    ['q of one code point', [SINCE, ['q', ' \u{1D11E} ']]],
    ['q over 200', [SINCE, ['q', 'x'.repeat(201)]]],
    ['limit zero', [SINCE, ['limit', '0']]],
    ['limit signed', [SINCE, ['limit', '+5']]],
    ['limit with spaces', [SINCE, ['limit', ' 5']]],
    ['NUL in q', [SINCE, ['q', 'ab\u0000']]],
    ['NUL in service', [SINCE, ['service', '\u0000']]],
    ['NUL in entityType', [SINCE, ['entityType', 'order\u0000']]],
    ['NUL in status', [SINCE, ['status', 'active\u0000']]],
    ['NUL in environment', [SINCE, ['environment', '\u0000']]],
    ['NUL in since', [['since', '2026-01-01T00:00:00Z\u0000']]],
    ['repeated since', [SINCE, SINCE]],
    ['repeated status', [SINCE, ['status', 'active'], ['status', 'active']]],
    ['repeated service', [SINCE, ['service', 'a'], ['service', 'a']]],
    ['repeated q', [SINCE, ['q', 'ab'], ['q', 'ab']]],
    ['repeated entityType', [SINCE, ['entityType', 'a'], ['entityType', 'a']]],
    ['unknown parameter', [SINCE, ['Status', 'active']]],
  ] as Array<[string, Array<[string, string]>]>)('%s: 400 invalid_query', async (_what, params) => {
    const response = await list(credential, params);
    expect(refusal(response, 400)).toBe('invalid_query');
    expect(response.json().error.details[0].path).toEqual(expect.any(String));
  });

  it.each([
    ['malformed', [['cursor', '!!!']]],
    ['non-canonical base64url', [['cursor', `${Buffer.from(JSON.stringify({ k: 'j', t: '0', id: 'a' })).toString('base64url')}=`]]],
    ['repeated', [['cursor', 'a'], ['cursor', 'b']]],
    ['holding NUL', [['cursor', '\u0000']]],
    ['with extra keys', [['cursor', Buffer.from(JSON.stringify({ k: 'j', t: '0', id: 'a', status: 'x' })).toString('base64url')]]],
    ['with a numeric instant', [['cursor', Buffer.from(JSON.stringify({ k: 'j', t: 0, id: 'a' })).toString('base64url')]]],
    ['with an over-long id', [['cursor', Buffer.from(JSON.stringify({ k: 'j', t: '0', id: 'x'.repeat(129) })).toString('base64url')]]],
  ] as Array<[string, Array<[string, string]>]>)('a cursor %s: 400 invalid_cursor', async (_what, params) => {
    expect(refusal(await list(credential, [SINCE, ...params]), 400)).toBe('invalid_cursor');
  });

  it('treats an empty cursor as the first page', async () => {
    expect((await list(credential, [SINCE, ['cursor', '']])).statusCode).toBe(200);
  });
});

describe('GET /v1/journeys: credentials and project selection', () => {
  it('needs a credential', async () => {
    expect(refusal(await fx.app.inject({ method: 'GET', url: '/v1/journeys?since=2026-01-01T00:00:00Z' }), 401)).toBe('unauthorized');
  });

  it('resolves the admin project: the sole one without a header, else 404 project_not_found', async () => {
    expect((await list({ kind: 'admin', projectHeader: null }, [SINCE])).statusCode).toBe(200);
    expect(refusal(await list({ kind: 'admin', projectHeader: 'not-a-uuid' }, [SINCE]), 404)).toBe('project_not_found');
    await fx.db.pool.query(`INSERT INTO projects (id, slug, name) VALUES ('11111111-1111-4111-8111-111111111111', 'other', 'Other')`);
    expect(refusal(await list({ kind: 'admin', projectHeader: null }, [SINCE]), 404)).toBe('project_not_found');
    const other = await list({ kind: 'admin', projectHeader: '11111111-1111-4111-8111-111111111111' }, [SINCE]);
    expect(other.json()).toEqual({ data: { items: [], nextCursor: null } });
  });
});
