import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { createProject } from '../projects/projects-sql.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, buildTestApp } from '../../test/helpers/app.ts';
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
  type ReadFixture,
} from './test-fixtures.ts';

let fx: ReadFixture;
const UUID_ENTITY = '0F8FAD5B-D9CB-469F-A165-70867728950E';

beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', [
    {
      id: 'evt-1',
      journeyId: 'jrn-1',
      timestamp: '2026-02-10T10:00:00.000Z',
      entity: { type: 'order', id: 'ORD-1' },
      aliases: { email: 'alice@example.com', phone: '+44 20 7946 0000', Zeta: 'z-value', alpha: 'b-value', nul: 'a\u0000b' },
      displayableAliases: ['email', 'Zeta', 'alpha', 'nul'],
      journeyLabel: 'Alice order',
      traceId: 'trace-shared',
      spanId: 'span-1',
      messageId: 'message-1',
      correlationId: 'correlation-1',
    },
    { id: 'evt-2', journeyId: 'jrn-2', timestamp: '2026-02-11T10:00:00.000Z', entity: { type: 'order', id: 'ORD-2' }, traceId: 'trace-shared' },
    { id: 'evt-4', journeyId: 'jrn-4', timestamp: '2026-02-09T10:00:00.000Z', entity: { type: 'user', id: UUID_ENTITY } },
    // Same lastEventAt: journeyId desc in byte order puts `tie-b` (0x62) before `tie-B` (0x42).
    { id: 'evt-5', journeyId: 'tie-B', timestamp: '2026-02-08T10:00:00.000Z', entity: { type: 'order', id: 'TIE' } },
    { id: 'evt-6', journeyId: 'tie-b', timestamp: '2026-02-08T10:00:00.000Z', entity: { type: 'order', id: 'TIE' } },
  ]);
  await ingest(fx, 'staging', [
    { id: 'evt-3', journeyId: 'jrn-3', timestamp: '2026-02-12T10:00:00.000Z', entity: { type: 'order', id: 'ORD-1' } },
  ]);
});
afterAll(async () => fx.close());

const search = (credential: Credential, params: Array<[string, string]>) => get(fx, credential, urlWith('/v1/search', params));
const ids = (body: { data: { items: Array<{ journeyId: string }> } }) => body.data.items.map((item) => item.journeyId);

describe('GET /v1/search: what a value resolves against', () => {
  it.each([
    ['entity id', 'ORD-2', ['jrn-2']],
    ['alias (displayable)', 'alice@example.com', ['jrn-1']],
    ['alias (masked)', '+44 20 7946 0000', ['jrn-1']],
    ['journey id', 'jrn-1', ['jrn-1']],
    ['trace id', 'trace-shared', ['jrn-2', 'jrn-1']],
    ['span id', 'span-1', ['jrn-1']],
    ['message id', 'message-1', ['jrn-1']],
    ['correlation id', 'correlation-1', ['jrn-1']],
    ['value with surrounding white space', '  ORD-2\t', ['jrn-2']],
    ['UUID in another case', UUID_ENTITY.toLowerCase(), ['jrn-4']],
  ])('finds a journey by %s', async (_what, q, expected) => {
    const response = await search(API_KEY, [['q', q]]);
    expect(response.statusCode).toBe(200);
    expect(ids(response.json())).toEqual(expected);
  });

  it('does not match a substring, another case or a label', async () => {
    for (const q of ['ORD', 'ord-2', 'Alice order']) {
      expect(ids((await search(API_KEY, [['q', q]])).json())).toEqual([]);
    }
  });

  it('answers summaries with exactly the summary fields and only displayable aliases, type then value', async () => {
    const response = await search(ADMIN, [['q', 'jrn-1']]);
    expect(response.json()).toEqual({
      data: {
        items: [
          {
            journeyId: 'jrn-1',
            entity: { type: 'order', id: 'ORD-1' },
            status: 'active',
            eventCount: 1,
            startedAt: '2026-02-10T10:00:00.000Z',
            lastEventAt: '2026-02-10T10:00:00.000Z',
            label: 'Alice order',
            lastStep: 'receive-order',
            failedStep: null,
            // Code point order: `Zeta` before `alpha`; the masked phone and the NUL value never listed.
            displayableAliases: [
              { type: 'Zeta', value: 'z-value' },
              { type: 'alpha', value: 'b-value' },
              { type: 'email', value: 'alice@example.com' },
            ],
            environment: 'production',
            findings: [],
          },
        ],
        nextCursor: null,
      },
    });
  });

  it('orders by lastEventAt desc, then journeyId desc in byte order', async () => {
    expect(ids((await search(ADMIN, [['q', 'TIE']])).json())).toEqual(['tie-b', 'tie-B']);
    expect(ids((await search(ADMIN, [['q', 'ORD-1']])).json())).toEqual(['jrn-3', 'jrn-1']);
  });
});

describe('GET /v1/search: during a key rotation', () => {
  it('finds values tokenized under the previous key', async () => {
    const rotated = createKeyring({ current: 'the-next-encryption-key-0123456789abcdefghij', previous: TEST_ENCRYPTION_KEY });
    const { app } = await buildTestApp(fx.db.pool, { keyring: rotated, now: () => NOW_MS });
    try {
      const response = await app.inject({
        method: 'GET',
        url: '/v1/search?q=ORD-2',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': fx.projectId },
      });
      expect(response.json().data.items).toMatchObject([{ journeyId: 'jrn-2', entity: { type: 'order', id: 'ORD-2' } }]);
    } finally {
      await app.close();
    }
  });
});

describe('GET /v1/search: scope and environment', () => {
  it('gives an API key its own environment only', async () => {
    expect(ids((await search(API_KEY, [['q', 'ORD-1']])).json())).toEqual(['jrn-1']);
    expect(ids((await search({ kind: 'api-key', environment: 'staging' }, [['q', 'ORD-1']])).json())).toEqual(['jrn-3']);
  });

  it('answers an API key naming another or an unknown environment with an empty page', async () => {
    for (const environment of ['staging', 'nowhere']) {
      const response = await search(API_KEY, [['q', 'ORD-1'], ['environment', environment]]);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ data: { items: [], nextCursor: null } });
    }
    expect(ids((await search(API_KEY, [['q', 'ORD-1'], ['environment', 'production']])).json())).toEqual(['jrn-1']);
    expect(ids((await search(API_KEY, [['q', 'ORD-1'], ['environment', '']])).json())).toEqual(['jrn-1']);
  });

  it('lets the admin token pick one environment of the project; an unknown one is an empty page', async () => {
    expect(ids((await search(ADMIN, [['q', 'ORD-1'], ['environment', 'staging']])).json())).toEqual(['jrn-3']);
    expect(ids((await search(ADMIN, [['q', 'ORD-1'], ['environment', 'production']])).json())).toEqual(['jrn-1']);
    const unknown = await search(ADMIN, [['q', 'ORD-1'], ['environment', 'Production']]);
    expect(unknown.statusCode).toBe(200);
    expect(ids(unknown.json())).toEqual([]);
  });
});

describe('GET /v1/search: window on lastEventAt', () => {
  it('is half-open: since inclusive, until exclusive', async () => {
    const at = '2026-02-10T10:00:00.000Z';
    expect(ids((await search(API_KEY, [['q', 'trace-shared'], ['since', at]])).json())).toEqual(['jrn-2', 'jrn-1']);
    expect(ids((await search(API_KEY, [['q', 'trace-shared'], ['until', at]])).json())).toEqual([]);
    expect(ids((await search(API_KEY, [['q', 'trace-shared'], ['until', '2026-02-10T10:00:00.001Z']])).json())).toEqual(['jrn-1']);
    expect(ids((await search(API_KEY, [['q', 'trace-shared'], ['since', '2026-02-10T10:00:00.0001Z']])).json())).toEqual(['jrn-2']);
  });

  it('reads offsets and an unencoded plus sign', async () => {
    const plus = await fx.app.inject({
      method: 'GET',
      url: '/v1/search?q=trace-shared&since=2026-02-10T12:00:00+02:00',
      headers: { authorization: `Bearer ${fx.keys.production}` },
    });
    expect(ids(plus.json())).toEqual(['jrn-2', 'jrn-1']);
    expect(ids((await search(API_KEY, [['q', 'trace-shared'], ['since', '2026-02-10T11:00:00.000+01:00'], ['until', '2026-02-11T10:00Z']])).json())).toEqual(['jrn-1']);
  });

  it('treats empty bounds as none and has no default window', async () => {
    expect(ids((await search(API_KEY, [['q', 'trace-shared'], ['since', ''], ['until', '']])).json())).toEqual(['jrn-2', 'jrn-1']);
  });

  it('allows since up to 60 seconds ahead of the API clock and until anywhere after since', async () => {
    const ahead = (ms: number) => new Date(NOW_MS + ms).toISOString();
    expect((await search(API_KEY, [['q', 'x'], ['since', ahead(60_000)]])).statusCode).toBe(200);
    expect((await search(API_KEY, [['q', 'x'], ['until', '9999-12-31T23:59:59.999Z']])).statusCode).toBe(200);
    expect(refusal(await search(API_KEY, [['q', 'x'], ['since', ahead(60_001)]]), 400)).toBe('invalid_query');
  });
});

describe('GET /v1/search: paging', () => {
  it('pages by cursor without repeating or losing journeys', async () => {
    const first = await search(ADMIN, [['q', 'trace-shared'], ['limit', '1']]);
    expect(ids(first.json())).toEqual(['jrn-2']);
    const cursor = first.json().data.nextCursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await search(ADMIN, [['q', 'trace-shared'], ['limit', '1'], ['cursor', cursor]]);
    expect(ids(second.json())).toEqual(['jrn-1']);
    expect(second.json().data.nextCursor).toBeNull();
  });

  it('takes filters from the request, not from the cursor', async () => {
    const first = await search(ADMIN, [['q', 'ORD-1'], ['limit', '1']]);
    expect(ids(first.json())).toEqual(['jrn-3']);
    const cursor = first.json().data.nextCursor as string;
    // The cursor holds lastEventAt of jrn-3 (2026-02-12): trace-shared rows after it are jrn-2, jrn-1.
    const other = await search(ADMIN, [['q', 'trace-shared'], ['cursor', cursor]]);
    expect(other.statusCode).toBe(200);
    expect(ids(other.json())).toEqual(['jrn-2', 'jrn-1']);
  });

  it('reads an empty limit as the default and a limit above 100 as 100', async () => {
    expect((await search(API_KEY, [['q', 'ORD-1'], ['limit', '']])).statusCode).toBe(200);
    expect((await search(API_KEY, [['q', 'ORD-1'], ['limit', '100000000000000000000']])).statusCode).toBe(200);
  });
});

describe.each(READERS)('GET /v1/search refusals (%s)', (_name, credential) => {
  it.each([
    ['q missing', [['limit', '5']]],
    ['q empty', [['q', '']]],
    ['q white space only', [['q', ' \t ']]],
    ['q repeated', [['q', 'ORD-1'], ['q', 'ORD-2']]],
    ['NUL in q', [['q', 'ORD\u00001']]],
    ['NUL in environment', [['q', 'ORD-1'], ['environment', 'pro\u0000d']]],
    ['since without a time zone', [['q', 'ORD-1'], ['since', '2026-02-10T10:00:00']]],
    ['since as a date only', [['q', 'ORD-1'], ['since', '2026-02-10']]],
    ['since an impossible date', [['q', 'ORD-1'], ['since', '2026-02-30T10:00:00Z']]],
    ['since not a date', [['q', 'ORD-1'], ['since', 'yesterday']]],
    ['since more than 60 s ahead', [['q', 'ORD-1'], ['since', '2026-03-01T12:01:00.001Z']]],
    ['until malformed', [['q', 'ORD-1'], ['until', '2026-02-10 10:00:00Z']]],
    ['until impossible', [['q', 'ORD-1'], ['until', '2026-13-01T00:00:00Z']]],
    ['until equal to since', [['q', 'ORD-1'], ['since', '2026-02-10T10:00:00Z'], ['until', '2026-02-10T11:00:00+01:00']]],
    ['until before since', [['q', 'ORD-1'], ['since', '2026-02-10T10:00:00.0002Z'], ['until', '2026-02-10T10:00:00.0001Z']]],
    ['since repeated', [['q', 'ORD-1'], ['since', '2026-02-10T10:00:00Z'], ['since', '2026-02-10T10:00:00Z']]],
    ['until repeated', [['q', 'ORD-1'], ['until', '2026-02-10T10:00:00Z'], ['until', '2026-02-10T10:00:00Z']]],
    ['environment repeated', [['q', 'ORD-1'], ['environment', 'production'], ['environment', 'production']]],
    ['limit repeated', [['q', 'ORD-1'], ['limit', '5'], ['limit', '5']]],
    ['limit zero', [['q', 'ORD-1'], ['limit', '0']]],
    ['limit negative', [['q', 'ORD-1'], ['limit', '-1']]],
    ['limit fractional', [['q', 'ORD-1'], ['limit', '1.5']]],
    ['limit not a number', [['q', 'ORD-1'], ['limit', 'ten']]],
    ['unknown parameter', [['q', 'ORD-1'], ['status', 'active']]],
  ] as Array<[string, Array<[string, string]>]>)('%s: 400 invalid_query', async (_what, params) => {
    const response = await search(credential, params);
    expect(refusal(response, 400)).toBe('invalid_query');
    // No value is quoted back: q may be an identifier.
    expect(response.body).not.toContain('ORD-1');
  });

  it.each([
    ['malformed', [['cursor', 'not a cursor']]],
    ['not base64url JSON', [['cursor', 'AAAA']]],
    ['repeated', [['cursor', 'x'], ['cursor', 'x']]],
    ['holding NUL', [['cursor', 'ab\u0000c']]],
    ['of another list', [['cursor', Buffer.from(JSON.stringify({ k: 'e', t: '0', r: '0', id: 'x' })).toString('base64url')]]],
    ['with an id holding NUL', [['cursor', Buffer.from(JSON.stringify({ k: 'j', t: '0', id: 'a\u0000' })).toString('base64url')]]],
    ['with an impossible instant', [['cursor', Buffer.from(JSON.stringify({ k: 'j', t: '999999999999999999', id: 'a' })).toString('base64url')]]],
  ] as Array<[string, Array<[string, string]>]>)('a cursor %s: 400 invalid_cursor', async (_what, params) => {
    expect(refusal(await search(credential, [['q', 'ORD-1'], ...params]), 400)).toBe('invalid_cursor');
  });
});

describe('GET /v1/search: credentials and project selection', () => {
  it('refuses a missing or wrong credential with 401', async () => {
    expect(refusal(await fx.app.inject({ method: 'GET', url: '/v1/search?q=ORD-1' }), 401)).toBe('unauthorized');
  });

  it('uses the sole project when the admin token names none, and refuses a non-uuid header', async () => {
    expect(ids((await search({ kind: 'admin', projectHeader: null }, [['q', 'ORD-1']])).json())).toEqual(['jrn-3', 'jrn-1']);
    expect(refusal(await search({ kind: 'admin', projectHeader: 'acme' }, [['q', 'ORD-1']]), 404)).toBe('project_not_found');
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(refusal(await search({ kind: 'admin', projectHeader: unknown }, [['q', 'ORD-1']]), 404)).toBe('project_not_found');
  });

  it('needs the header once there are several projects', async () => {
    await createProject(fx.db.pool, 'second', 'Second');
    expect(refusal(await search({ kind: 'admin', projectHeader: null }, [['q', 'ORD-1']]), 404)).toBe('project_not_found');
    expect(ids((await search(ADMIN, [['q', 'ORD-1']])).json())).toEqual(['jrn-3', 'jrn-1']);
  });
});

describe('GET /v1/search: a journey that moves between pages', () => {
  it('moves to the top and does not appear on later pages', async () => {
    await ingest(fx, 'production', [
      { id: 'mv-1', journeyId: 'mv-1', timestamp: '2026-02-20T10:00:00.000Z', traceId: 'trace-move' },
      { id: 'mv-2', journeyId: 'mv-2', timestamp: '2026-02-19T10:00:00.000Z', traceId: 'trace-move' },
      { id: 'mv-3', journeyId: 'mv-3', timestamp: '2026-02-18T10:00:00.000Z', traceId: 'trace-move' },
    ]);
    const first = await search(API_KEY, [['q', 'trace-move'], ['limit', '1']]);
    expect(ids(first.json())).toEqual(['mv-1']);
    await ingest(fx, 'production', [{ id: 'mv-3b', journeyId: 'mv-3', timestamp: '2026-02-21T10:00:00.000Z' }]);
    const second = await search(API_KEY, [['q', 'trace-move'], ['cursor', first.json().data.nextCursor]]);
    expect(ids(second.json())).toEqual(['mv-2']);
    expect(ids((await search(API_KEY, [['q', 'trace-move']])).json())).toEqual(['mv-3', 'mv-1', 'mv-2']);
  });
});
