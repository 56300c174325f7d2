import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../../test/helpers/app.ts';
import { contactJourney } from '../forensics/test-journeys.ts';
import { ADMIN, API_KEY, createReadFixture, get, ingest, refusal, urlWith, type ReadFixture } from '../query/test-fixtures.ts';
import type { Analyzer } from './analyzer.ts';
import { drainAll, quietAnalyzer } from './test-kit.ts';

let fx: ReadFixture;
let analyzer: Analyzer;
const SINCE = '2026-02-01T00:00:00Z';

beforeAll(async () => {
  fx = await createReadFixture();
  analyzer = quietAnalyzer(fx.db.pool, { now: () => Date.parse('2026-03-01T12:00:00.000Z') });
  // Five journeys lose the phone (one in transit), three keep it; one staging journey loses it.
  const variants = ['lost', 'lost', 'lost', 'lost', 'transit', 'kept', 'kept', 'kept'] as const;
  await ingest(fx, 'production', variants.flatMap((variant, i) => contactJourney(`jrn-${i}`, variant, `2026-02-10T10:0${i}:00.000Z`)));
  await ingest(fx, 'staging', contactJourney('jrn-staging', 'lost'));
  await drainAll(analyzer, fx.db.pool);
});
afterAll(async () => {
  await analyzer.stop();
  await fx.close();
});

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const ids = (body: { data: { items: Array<{ journeyId: string }> } }) => body.data.items.map((item) => item.journeyId);

describe('GET /v1/journeys?finding=', () => {
  it('lists the journeys with a finding of that kind and path, newest first, in keyset pages', async () => {
    const first = await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'lost'], ['path', 'customer.phone'], ['limit', '3']]));
    expect(first.statusCode, first.body).toBe(200);
    expect(ids(first.json())).toEqual(['jrn-4', 'jrn-3', 'jrn-2']);
    const cursor = first.json().data.nextCursor as string;
    const second = await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'lost'], ['path', 'customer.phone'], ['limit', '3'], ['cursor', cursor]]));
    // jrn-staging and jrn-0 end at the same instant: id order decides.
    expect(ids(second.json())).toEqual(['jrn-1', 'jrn-staging', 'jrn-0']);
    expect(second.json().data.nextCursor).toBeNull();
  });

  it('combines with the other filters and the caller\'s scope', async () => {
    const key = await get(fx, API_KEY, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'lost'], ['path', 'customer.phone']]));
    expect(ids(key.json())).toEqual(['jrn-4', 'jrn-3', 'jrn-2', 'jrn-1', 'jrn-0']);
    const staging = await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'lost'], ['environment', 'staging']]));
    expect(ids(staging.json())).toEqual(['jrn-staging']);
    const none = await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'lost'], ['path', 'customer.fax']]));
    expect(ids(none.json())).toEqual([]);
    const duplicated = await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'duplicated']]));
    expect(ids(duplicated.json())).toEqual([]);
  });

  it('carries the findings on each item and on the journey read', async () => {
    const list = await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'lost'], ['path', 'customer.phone'], ['limit', '1'], ['environment', 'production']]));
    const item = list.json().data.items[0];
    expect(item.findings).toContainEqual({ kind: 'lost', path: 'customer.phone', step: { eventId: 'jrn-4-2-persist', service: 'crm', name: 'persist' }, inTransit: true, from: { eventId: 'jrn-4-1-normalize', service: 'contacts', name: 'normalize-contact' } });
    const read = await get(fx, ADMIN, '/v1/journeys/jrn-0');
    expect(read.json().data.findings).toContainEqual({ kind: 'lost', path: 'customer.phone', step: { eventId: 'jrn-0-1-normalize', service: 'contacts', name: 'normalize-contact' }, inTransit: false, from: null });
    expect(read.json().data.status).toBe('active');
  });

  it('refuses an unknown kind, a path without a kind and an over-long path', async () => {
    expect(refusal(await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'weird']])), 400)).toBe('invalid_query');
    expect(refusal(await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['path', 'customer.phone']])), 400)).toBe('invalid_query');
    expect(refusal(await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'lost'], ['path', 'x'.repeat(1025)]])), 400)).toBe('invalid_query');
  });
});

describe('hostile input (fast-check)', () => {
  it('answers any finding and path with a page or invalid_query, never an error of the server', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 1100 }), async (finding, path) => {
        const response = await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', finding], ['path', path]]));
        expect([200, 400], response.body.slice(0, 200)).toContain(response.statusCode);
        if (response.statusCode === 400) expect(response.json().error.code).toMatch(/^(invalid_query|bad_url)$/);
      }),
      { numRuns: 60 },
    );
  });

  it('answers any expectation body with the saved expectation or invalid_request', async () => {
    const body = fc.oneof(
      fc.anything(),
      fc.record({ steps: fc.array(fc.record({ name: fc.string(), optional: fc.anything() })), finalStep: fc.string(), maxGapSeconds: fc.anything(), deadlineSeconds: fc.anything() }, { requiredKeys: [] }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const response = await fx.app.inject({
          method: 'PUT', url: `/v1/projects/${fx.projectId}/expectations/fuzz`,
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify(value) ?? 'null',
        });
        expect([200, 400], response.body.slice(0, 200)).toContain(response.statusCode);
      }),
      { numRuns: 60 },
    );
    await fx.db.pool.query(`DELETE FROM expectations WHERE entity_type = 'fuzz'`);
  });
});

describe('GET /v1/findings/summary', () => {
  it('counts journeys by kind and names the top lost field with its step', async () => {
    const response = await get(fx, ADMIN, urlWith('/v1/findings/summary', [['since', SINCE], ['until', '2026-03-01T00:00:00Z'], ['environment', 'production']]));
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data.counts.lost).toBe(8);
    // The queue's consumer drops messageId in every journey; the phone is lost in five.
    expect(data.topLostFields[0]).toMatchObject({ path: 'messageId', journeys: 8 });
    expect(data.topLostFields[1]).toEqual({ path: 'customer.phone', journeys: 5, step: { service: 'contacts', name: 'normalize-contact' }, stepJourneys: 4 });
    const key = await get(fx, API_KEY, urlWith('/v1/findings/summary', [['since', SINCE], ['until', '2026-03-01T00:00:00Z'], ['environment', 'staging']]));
    expect(key.json().data.counts.lost).toBe(0);
    expect(refusal(await get(fx, ADMIN, urlWith('/v1/findings/summary', [['since', '2026-03-01T00:00:00Z'], ['until', SINCE]])), 400)).toBe('invalid_query');
  });
});

describe('expectations', () => {
  const url = () => `/v1/projects/${fx.projectId}/expectations`;
  const headers = () => ({ ...admin, 'x-service-project-id': fx.projectId, 'content-type': 'application/json' });

  it('are refused to an API key and to an unknown project', async () => {
    expect(refusal(await get(fx, API_KEY, url()), 401)).toBe('unauthorized');
    expect(refusal(await fx.app.inject({ method: 'GET', url: '/v1/projects/nope/expectations', headers: admin }), 404)).toBe('project_not_found');
  });

  it('refuses an expectation without a final step', async () => {
    const response = await fx.app.inject({ method: 'PUT', url: `${url()}/contact`, headers: headers(), payload: JSON.stringify({ steps: [] }) });
    expect(refusal(response, 400)).toBe('invalid_request');
  });

  it('refuses a final step that is not among the steps, and names every field at fault in details', async () => {
    const put = (body: unknown) => fx.app.inject({ method: 'PUT', url: `${url()}/parcel`, headers: headers(), payload: JSON.stringify(body) });
    const outside = await put({ steps: [{ name: 'receive' }, { name: 'store' }], finalStep: 'deliver' });
    expect(refusal(outside, 400)).toBe('invalid_request');
    expect(outside.json().error.details).toEqual([{ path: 'finalStep', message: 'is not one of the steps' }]);
    const several = await put({ steps: [{ name: 'receive' }], finalStep: 'receive', maxGapSeconds: 0, deadlineSeconds: -5 });
    expect(refusal(several, 400)).toBe('invalid_request');
    expect(several.json().error.details.map((d: { path: string }) => d.path)).toEqual(['maxGapSeconds', 'deadlineSeconds']);
    // With no steps listed, the final step alone is the expectation.
    const alone = await put({ steps: [], finalStep: 'complete' });
    expect(alone.statusCode, alone.body).toBe(200);
    await fx.db.pool.query(`DELETE FROM expectations WHERE entity_type = 'parcel'`);
  });

  it('makes journeys overdue and steps skipped once saved, and suggests from completed journeys', async () => {
    const journeyStart = '2026-03-01T11:00:00.000Z';
    const steps = contactJourney('jrn-late', 'kept', journeyStart).slice(0, 2);
    const skipping = contactJourney('jrn-skip', 'missing-publish', journeyStart);
    await ingest(fx, 'production', [...steps, ...skipping]);
    const saved = await fx.app.inject({
      method: 'PUT', url: `${url()}/contact`, headers: headers(),
      payload: JSON.stringify({ steps: ['receive', 'normalize-contact', 'persist', 'publish', 'consume', 'deliver'].map((name) => ({ name })), finalStep: 'deliver', deadlineSeconds: 600 }),
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data).toMatchObject({ entityType: 'contact', finalStep: 'deliver', deadlineSeconds: 600, maxGapSeconds: null });
    await drainAll(analyzer, fx.db.pool);
    const overdue = await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'overdue']]));
    expect(ids(overdue.json())).toContain('jrn-late');
    expect(ids(overdue.json())).not.toContain('jrn-skip');
    const skipped = await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'skipped_step'], ['path', 'publish']]));
    expect(ids(skipped.json())).toEqual(['jrn-skip']);
    const listed = await get(fx, ADMIN, url());
    expect(listed.json().data.items.map((e: { entityType: string }) => e.entityType)).toEqual(['contact']);

    const suggestion = await get(fx, ADMIN, `${url()}/contact/suggestion?journeys=5`);
    expect(suggestion.statusCode, suggestion.body).toBe(200);
    expect(suggestion.json().data).toMatchObject({ entityType: 'contact', journeys: 0, finalStep: null });
    expect(refusal(await get(fx, ADMIN, `${url()}/contact/suggestion?journeys=0`), 400)).toBe('invalid_query');

    const removed = await fx.app.inject({ method: 'DELETE', url: `${url()}/contact`, headers: admin });
    expect(removed.statusCode).toBe(204);
    await drainAll(analyzer, fx.db.pool);
    expect(ids((await get(fx, ADMIN, urlWith('/v1/journeys', [['since', SINCE], ['finding', 'overdue']]))).json())).toEqual([]);
  });
});
