import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  API_KEY,
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

beforeAll(async () => {
  fx = await createReadFixture();
  // Sent out of timeline order; e-2 and e-3 share a timestamp, so receivedAt (arrival) decides.
  await ingest(fx, 'production', [
    { id: 'e-5', journeyId: 'jrn-1', timestamp: '2026-02-10T10:00:05.000Z', operation: 'completed', name: 'done', durationMs: 12 },
    { id: 'e-1', journeyId: 'jrn-1', timestamp: '2026-02-10T10:00:01.000Z', input: { a: 1 }, deployment: { gitCommit: 'abc123', version: '1.2.3' } },
    {
      id: 'e-2',
      journeyId: 'jrn-1',
      timestamp: '2026-02-10T10:00:02.000Z',
      service: 'billing',
      name: 'charge',
      operation: 'transformed',
      output: { ok: true },
      error: { message: 'declined' },
    },
    { id: 'e-3', journeyId: 'jrn-1', timestamp: '2026-02-10T10:00:02.000Z', name: 'retry', operation: 'retried' },
    { id: 'e-4', journeyId: 'jrn-1', timestamp: '2026-02-10T10:00:04.000Z' },
  ]);
  await ingest(fx, 'staging', [{ id: 's-1', journeyId: 'jrn-staging', timestamp: '2026-02-10T10:00:00.000Z' }]);
});
afterAll(async () => fx.close());

const events = (credential: Credential, journeyId: string, params: Array<[string, string]> = []) =>
  get(fx, credential, urlWith(`/v1/journeys/${encodeURIComponent(journeyId)}/events`, params));
const ids = (response: { json(): unknown }) => (response.json() as { data: { items: Array<{ id: string }> } }).data.items.map((i) => i.id);

describe('GET /v1/journeys/:journeyId/events', () => {
  it('lists event rows with exactly the eleven fields in ascending timeline order', async () => {
    const response = await events(API_KEY, 'jrn-1');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.data.nextCursor).toBeNull();
    expect(ids(response)).toEqual(['e-1', 'e-2', 'e-3', 'e-4', 'e-5']);
    for (const item of body.data.items) {
      expect(Object.keys(item).sort()).toEqual(
        ['deploymentMetadata', 'durationMs', 'eventTimestamp', 'hasError', 'hasInput', 'hasOutput', 'id', 'name', 'operation', 'receivedAt', 'service'].sort(),
      );
      expect(item.receivedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    expect(body.data.items[0]).toMatchObject({
      id: 'e-1',
      operation: 'received',
      name: 'receive-order',
      service: 'checkout',
      eventTimestamp: '2026-02-10T10:00:01.000Z',
      durationMs: null,
      hasInput: true,
      hasOutput: false,
      hasError: false,
      deploymentMetadata: { gitCommit: 'abc123', version: '1.2.3' },
    });
    expect(body.data.items[1]).toMatchObject({ id: 'e-2', service: 'billing', hasOutput: true, hasError: true, deploymentMetadata: null });
    expect(body.data.items[4]).toMatchObject({ id: 'e-5', operation: 'completed', durationMs: 12 });
  });

  it('breaks a tie of timestamp and receivedAt by event id in byte order', async () => {
    await fx.db.pool.query(
      `UPDATE events SET received_at = (SELECT received_at FROM events WHERE id = 'e-2') WHERE id = 'e-3'`,
    );
    await fx.db.pool.query(`UPDATE events SET id = 'E-9' WHERE id = 'e-3'`);
    expect(ids(await events(API_KEY, 'jrn-1'))).toEqual(['e-1', 'E-9', 'e-2', 'e-4', 'e-5']);
    await fx.db.pool.query(`UPDATE events SET id = 'e-3' WHERE id = 'E-9'`);
  });

  it.each(READERS)('pages with limit and cursor (%s)', async (_name, credential) => {
    const first = await events(credential, 'jrn-1', [['limit', '2']]);
    expect(ids(first)).toEqual(['e-1', 'e-2']);
    const second = await events(credential, 'jrn-1', [['limit', '2'], ['cursor', first.json().data.nextCursor]]);
    expect(ids(second)).toEqual(['e-3', 'e-4']);
    const third = await events(credential, 'jrn-1', [['limit', '2'], ['cursor', second.json().data.nextCursor]]);
    expect(ids(third)).toEqual(['e-5']);
    expect(third.json().data.nextCursor).toBeNull();
    expect(ids(await events(credential, 'jrn-1', [['limit', '']]))).toHaveLength(5);
    expect(ids(await events(credential, 'jrn-1', [['limit', '500'], ['cursor', '']]))).toHaveLength(5);
  });

  it('answers 404 for a journey outside the caller scope, unknown, or with a bad id', async () => {
    expect(refusal(await events(API_KEY, 'jrn-staging'), 404)).toBe('not_found');
    expect(refusal(await events(API_KEY, 'nope'), 404)).toBe('not_found');
    expect(refusal(await events(ADMIN, 'nope'), 404)).toBe('not_found');
    expect(refusal(await events(ADMIN, 'a\u0000b'), 404)).toBe('not_found');
    expect(refusal(await events(ADMIN, 'x'.repeat(129)), 404)).toBe('not_found');
    expect(ids(await events(ADMIN, 'jrn-staging'))).toEqual(['s-1']);
    expect(ids(await events(ADMIN, 'jrn-staging', []))).toEqual(['s-1']);
    expect(ids(await events({ kind: 'admin', projectHeader: null }, 'jrn-staging'))).toEqual(['s-1']);
    expect(refusal(await events({ kind: 'admin', projectHeader: 'jrn' }, 'jrn-staging'), 404)).toBe('project_not_found');
  });

  it('needs a credential', async () => {
    expect(refusal(await fx.app.inject({ method: 'GET', url: '/v1/journeys/jrn-1/events' }), 401)).toBe('unauthorized');
  });
});

describe.each(READERS)('GET /v1/journeys/:journeyId/events refusals (%s)', (_name, credential) => {
  it.each([
    ['limit zero', [['limit', '0']]],
    ['limit not a number', [['limit', 'all']]],
    ['limit fractional', [['limit', '2.0']]],
    ['limit repeated', [['limit', '2'], ['limit', '2']]],
    ['NUL in limit', [['limit', '2\u0000']]],
    ['unknown parameter', [['since', '2026-01-01T00:00:00Z']]],
  ] as Array<[string, Array<[string, string]>]>)('%s: 400 invalid_query', async (_what, params) => {
    expect(refusal(await events(credential, 'jrn-1', params), 400)).toBe('invalid_query');
  });

  it('refuses a malformed, repeated, NUL-holding or foreign cursor with invalid_cursor', async () => {
    const journeyCursor = Buffer.from(JSON.stringify({ k: 'j', t: '0', id: 'jrn-1' })).toString('base64url');
    const badReceived = Buffer.from(JSON.stringify({ k: 'e', t: '0', r: 'x', id: 'e-1' })).toString('base64url');
    for (const params of [
      [['cursor', 'garbage!']],
      [['cursor', 'a'], ['cursor', 'a']],
      [['cursor', 'abc\u0000']],
      [['cursor', journeyCursor]],
      [['cursor', badReceived]],
    ] as Array<Array<[string, string]>>) {
      expect(refusal(await events(credential, 'jrn-1', params), 400)).toBe('invalid_cursor');
    }
  });
});

describe('GET /v1/events/:eventId and GET /v1/journeys/:journeyId still answer', () => {
  it('reads one event and one journey within scope', async () => {
    expect((await get(fx, API_KEY, '/v1/events/e-1')).statusCode).toBe(200);
    expect(refusal(await get(fx, API_KEY, '/v1/events/s-1'), 404)).toBe('not_found');
    expect(refusal(await get(fx, API_KEY, '/v1/events/a%00b'), 404)).toBe('not_found');
    expect((await get(fx, ADMIN, '/v1/journeys/jrn-staging')).statusCode).toBe(200);
    expect(refusal(await get(fx, API_KEY, '/v1/journeys/jrn-staging'), 404)).toBe('not_found');
    expect(refusal(await get(fx, API_KEY, '/v1/journeys/jrn-1?limit=1'), 400)).toBe('invalid_query');
  });
});
