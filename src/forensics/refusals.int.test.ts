import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJourneyPayloads } from '../query/journey-payloads.ts';
import { API_KEY, createReadFixture, get, ingest, refusal, urlWith, type ReadFixture } from '../query/test-fixtures.ts';
import { MAX_FIELD_PATH_CODE_POINTS, MAX_FORENSICS_EVENTS, MAX_STEPS_PER_CHANGE } from './limits.ts';
import { contactJourney } from './test-journeys.ts';

let fx: ReadFixture;

beforeAll(async () => {
  fx = await createReadFixture();
  // A journey whose id is the static segment of the compare route.
  await ingest(fx, 'production', [...contactJourney('compare', 'lost'), ...contactJourney('jrn-kept', 'kept')]);
});
afterAll(async () => fx.close());

const fields = (path: string | null, journeyId = 'jrn-kept', extra: Array<[string, string]> = []) =>
  get(fx, API_KEY, urlWith(`/v1/journeys/${encodeURIComponent(journeyId)}/fields`, [...(path === null ? [] : [['path', path] as [string, string]]), ...extra]));

describe('forensics refusals', () => {
  it.each([
    ['missing', null],
    ['empty', ''],
    ['a key wildcard', '*.phone'],
    ['a recursive rule', '**.phone'],
    ['an empty key', 'customer..phone'],
    ['a leading dot', '.phone'],
    ['an unclosed bracket', 'items[*.sku'],
    ['a bracket that is not [*] or an index', 'items[x]'],
    ['over the length limit', 'a'.repeat(MAX_FIELD_PATH_CODE_POINTS + 1)],
    ['over the segment limit', Array.from({ length: 33 }, () => 'a').join('.')],
  ])('refuses a path that is %s with invalid_query', async (_label, path) => {
    const response = await fields(path);
    expect(refusal(response, 400)).toBe('invalid_query');
    expect(response.json().error.details).toEqual([expect.objectContaining({ path: 'path' })]);
  });

  it('refuses unknown and repeated parameters on every route', async () => {
    expect(refusal(await fields('customer.phone', 'jrn-kept', [['limit', '5']]), 400)).toBe('invalid_query');
    expect(refusal(await fields('customer.phone', 'jrn-kept', [['path', 'x']]), 400)).toBe('invalid_query');
    expect(refusal(await get(fx, API_KEY, '/v1/journeys/jrn-kept/changes?path=x'), 400)).toBe('invalid_query');
    expect(refusal(await get(fx, API_KEY, urlWith('/v1/journeys/compare', [['a', 'jrn-kept'], ['b', 'compare'], ['c', 'x']])), 400)).toBe('invalid_query');
  });

  it('compare needs both a and b', async () => {
    expect(refusal(await get(fx, API_KEY, urlWith('/v1/journeys/compare', [['b', 'jrn-kept']])), 400)).toBe('invalid_query');
    expect(refusal(await get(fx, API_KEY, urlWith('/v1/journeys/compare', [['a', 'jrn-kept']])), 400)).toBe('invalid_query');
    expect(refusal(await get(fx, API_KEY, urlWith('/v1/journeys/compare', [['a', ''], ['b', 'jrn-kept']])), 400)).toBe('invalid_query');
  });

  it('an unknown journey, or an id no journey can have, is not found', async () => {
    expect(refusal(await fields('customer.phone', 'nope'), 404)).toBe('not_found');
    expect(refusal(await fields('customer.phone', 'x'.repeat(129)), 404)).toBe('not_found');
    expect(refusal(await get(fx, API_KEY, '/v1/journeys/nope/changes'), 404)).toBe('not_found');
    expect(refusal(await get(fx, API_KEY, urlWith('/v1/journeys/compare', [['a', 'jrn-kept'], ['b', 'nope']])), 404)).toBe('not_found');
    expect(refusal(await get(fx, API_KEY, urlWith('/v1/journeys/compare', [['a', 'x'.repeat(129)], ['b', 'jrn-kept']])), 404)).toBe('not_found');
  });

  it('checks the credential before the query string', async () => {
    for (const url of ['/v1/journeys/jrn-kept/fields?path=*', '/v1/journeys/jrn-kept/changes', '/v1/journeys/compare?a=1']) {
      const response = await fx.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer jt_wrong' } });
      expect(refusal(response, 401)).toBe('unauthorized');
      expect(refusal(await fx.app.inject({ method: 'GET', url }), 401)).toBe('unauthorized');
    }
  });

  it('share the throttle of refused credentials; a valid API key is still read', async () => {
    const remoteAddress = '198.51.100.77';
    const url = '/v1/journeys/jrn-kept/changes';
    for (let i = 0; i < 5; i++) {
      expect(refusal(await fx.app.inject({ method: 'GET', url, remoteAddress, headers: { authorization: 'Bearer jt_wrong' } }), 401)).toBe('unauthorized');
    }
    const locked = await fx.app.inject({ method: 'GET', url: '/v1/journeys/jrn-kept/fields?path=a', remoteAddress, headers: { authorization: 'Bearer jt_wrong' } });
    expect(refusal(locked, 429)).toBe('too_many_attempts');
    expect((await get(fx, API_KEY, '/v1/journeys/compare?a=jrn-kept&b=jrn-kept', { remoteAddress })).statusCode).toBe(200);
  });

  it('without a and b, /v1/journeys/compare is the journey read of the journey named compare, which stays reachable below it too', async () => {
    const journey = await get(fx, API_KEY, '/v1/journeys/compare');
    expect(journey.statusCode).toBe(200);
    const other = (await get(fx, API_KEY, '/v1/journeys/jrn-kept')).json().data;
    expect(Object.keys(journey.json().data)).toEqual(Object.keys(other));
    expect(journey.json().data).toMatchObject({ journeyId: 'compare', environment: other.environment, entity: other.entity, eventCount: other.eventCount });
    expect(refusal(await get(fx, API_KEY, '/v1/journeys/compare?x=1'), 400)).toBe('invalid_query');
    // Out of the staging key's scope, as the journey read would answer.
    expect(refusal(await get(fx, { kind: 'api-key', environment: 'staging' }, '/v1/journeys/compare'), 404)).toBe('not_found');
    const followed = await fields('customer.phone', 'compare');
    expect(followed.statusCode).toBe(200);
    expect(followed.json().data.firstLoss).toMatchObject({ name: 'normalize-contact' });
    expect((await get(fx, API_KEY, '/v1/journeys/compare/changes')).statusCode).toBe(200);
  });

  it('reads at most the asked number of events and flags the rest', async () => {
    const scope = { projectId: fx.projectId, environmentId: null, environmentName: null };
    const cut = await readJourneyPayloads(fx.db.pool, scope, 'jrn-kept', 4);
    expect(cut).toMatchObject({ truncated: true });
    expect(cut!.events.map((event) => event.name)).toEqual(['receive', 'normalize-contact', 'persist', 'publish']);
    expect((await readJourneyPayloads(fx.db.pool, scope, 'jrn-kept', 6))!.truncated).toBe(false);
  });
});

describe('journeys over the event limit', () => {
  it('are answered on their first 10,000 events with a flag', async () => {
    const events = Array.from({ length: MAX_FORENSICS_EVENTS + 1 }, (_, i) => ({
      id: `long-${String(i).padStart(5, '0')}`,
      journeyId: 'jrn-long',
      timestamp: new Date(Date.parse('2026-02-01T00:00:00.000Z') + i * 1000).toISOString(),
      input: { n: i },
      output: { n: i + 1 },
    }));
    await ingest(fx, 'production', events);
    const followed = (await fields('n', 'jrn-long')).json().data;
    expect(followed.truncated).toBe(true);
    expect(followed.steps).toHaveLength(MAX_FORENSICS_EVENTS);
    const changes = (await get(fx, API_KEY, '/v1/journeys/jrn-long/changes')).json().data;
    expect(changes).toMatchObject({ truncated: true, changes: [{ path: 'n', kind: 'changed', stepCount: MAX_FORENSICS_EVENTS }] });
    expect(changes.changes[0].steps).toHaveLength(MAX_STEPS_PER_CHANGE);
    const compared = (await get(fx, API_KEY, urlWith('/v1/journeys/compare', [['a', 'jrn-long'], ['b', 'jrn-kept']]))).json().data;
    expect(compared.truncated).toEqual({ a: true, b: false });
  }, 120_000);
});
