import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../test/helpers/app.ts';
import { contactJourney } from '../forensics/test-journeys.ts';
import type { Analyzer } from '../findings/analyzer.ts';
import { drainAll, quietAnalyzer } from '../findings/test-kit.ts';
import { ADMIN, createReadFixture, get, ingest, urlWith, type ReadFixture } from '../query/test-fixtures.ts';
import { makePerson, tokenOf, sessionOf } from '../teams/test-kit.ts';

let fx: ReadFixture;
let analyzer: Analyzer;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  fx = await createReadFixture();
  analyzer = quietAnalyzer(fx.db.pool);
  // Four journeys lose the phone inside normalize-contact (two in release v2), one between
  // normalize-contact and persist, three keep it; one staging journey loses it too.
  const variants = ['lost', 'lost', 'lost', 'lost', 'transit', 'kept', 'kept', 'kept'] as const;
  await ingest(fx, 'production', variants.flatMap((variant, i) =>
    contactJourney(`jrn-${i}`, variant, `2026-02-10T10:0${i}:00.000Z`).map((event) => ({ ...event, deployment: { version: i >= 2 ? 'v2' : 'v1' } }))));
  await ingest(fx, 'staging', contactJourney('jrn-staging', 'lost', '2026-02-20T10:00:00.000Z'));
  await drainAll(analyzer, fx.db.pool);
  for (const role of ['viewer', 'operator'] as const) {
    const person = await makePerson(fx.db.pool, { [fx.projectId]: role });
    tokens[role] = (await tokenOf(fx.app, await sessionOf(fx.app, person.email))).secret;
  }
});
afterAll(async () => {
  await analyzer.stop();
  await fx.close();
});

interface Problem { id: string; kind: string; path: string | null; environment: string; step: { service: string; name: string } | null; from: { service: string; name: string } | null;
  inTransit: boolean; status: string; journeys: number; firstSeen: string | null; lastSeen: string | null }
const base = () => `/v1/projects/${fx.projectId}/problems`;
const list = async (params: Array<[string, string]> = []) => {
  const response = await get(fx, ADMIN, urlWith(base(), params));
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as { items: Problem[]; nextCursor: string | null };
};
const patch = (id: string, payload: unknown, token?: string) =>
  fx.app.inject({ method: 'PATCH', url: `${base()}/${id}`, headers: { ...(token === undefined ? { authorization: `Bearer ${'test-admin-token-0123456789abcdefghijklmnop'}` } : bearer(token)), 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
const phone = async () => (await list([['path', 'customer.phone'], ['kind', 'lost'], ['status', 'all']])).items;

describe('GET /v1/projects/:projectId/problems', () => {
  it('lists a loss inside a step and a loss in transit as two problems, by environment, most journeys first', async () => {
    const items = await phone();
    expect(items.map((p) => p.journeys)).toEqual([4, 1, 1]);
    expect(items[0]).toMatchObject({ environment: 'production', step: { service: 'contacts', name: 'normalize-contact' }, from: null, inTransit: false });
    const transit = items.find((p) => p.inTransit);
    expect(transit).toMatchObject({ environment: 'production', step: { service: 'crm', name: 'persist' }, from: { service: 'contacts', name: 'normalize-contact' } });
    expect(items.slice(1).map((p) => `${p.environment} ${p.inTransit}`).sort()).toEqual(['production true', 'staging false']);
    expect(items.every((p) => p.status === 'open')).toBe(true);
  });

  it('filters by status, kind, path, service, environment, release and since', async () => {
    const names = (items: Problem[]) => items.map((p) => `${p.environment} ${p.from?.name ?? '-'}>${p.step?.name}`).sort();
    expect(names((await list([['path', 'customer.phone'], ['environment', 'staging']])).items)).toEqual(['staging ->normalize-contact']);
    expect(names((await list([['path', 'customer.phone'], ['service', 'crm']])).items)).toEqual(['production normalize-contact>persist']);
    expect(names((await list([['path', 'customer.phone'], ['release', 'v1']])).items)).toEqual(['production ->normalize-contact']);
    expect(names((await list([['path', 'customer.phone'], ['release', 'v2']])).items)).toEqual(['production ->normalize-contact', 'production normalize-contact>persist']);
    expect(names((await list([['path', 'customer.phone'], ['since', '2026-02-15T00:00:00Z']])).items)).toEqual(['staging ->normalize-contact']);
    expect((await list([['kind', 'failed']])).items).toEqual([]);
    expect((await list([['path', 'no.such.field']])).items).toEqual([]);
  });

  it('sorts by journeys, last seen or first seen and pages with a cursor, every problem once', async () => {
    const all = (await list([['status', 'all'], ['limit', '100']])).items;
    expect(all.length).toBeGreaterThan(3);
    for (const sort of ['journeys', 'lastSeen', 'firstSeen'] as const) {
      const seen: Problem[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: Problem[]; nextCursor: string | null } = await list([['status', 'all'], ['sort', sort], ['limit', '2'], ...(cursor === null ? [] : [['cursor', cursor] as [string, string]])]);
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(seen.map((p) => p.id).sort()).toEqual(all.map((p) => p.id).sort());
      const keys = seen.map((p) => (sort === 'journeys' ? p.journeys : Date.parse((sort === 'lastSeen' ? p.lastSeen : p.firstSeen)!)));
      expect(keys).toEqual([...keys].sort((a, b) => b - a));
    }
  });

  it('refuses bad filters, sorts, limits and cursors with the spec codes', async () => {
    const code = async (params: Array<[string, string]>) => (await get(fx, ADMIN, urlWith(base(), params))).json().error.code;
    expect(await code([['status', 'closed']])).toBe('invalid_query');
    expect(await code([['kind', 'lostt']])).toBe('invalid_query');
    expect(await code([['sort', 'name']])).toBe('invalid_query');
    expect(await code([['limit', '0']])).toBe('invalid_query');
    expect(await code([['since', 'yesterday']])).toBe('invalid_query');
    expect(await code([['path', 'x'.repeat(1025)]])).toBe('invalid_query');
    expect(await code([['unknown', '1']])).toBe('invalid_query');
    expect(await code([['kind', 'lost'], ['kind', 'failed']])).toBe('invalid_query');
    expect(await code([['cursor', 'not-a-cursor!']])).toBe('invalid_cursor');
    const page = await list([['status', 'all'], ['limit', '1']]);
    // A cursor of one sort is not one of another.
    expect(await code([['status', 'all'], ['sort', 'lastSeen'], ['cursor', page.nextCursor!]])).toBe('invalid_cursor');
    expect((await get(fx, ADMIN, urlWith(base(), [['limit', '1000']]))).statusCode).toBe(200);
  });
});

describe('GET /v1/projects/:projectId/problems/:problemId', () => {
  it('shows the releases, the hourly and daily series and the first and latest journeys', async () => {
    const [loss] = await phone();
    const response = await get(fx, ADMIN, `${base()}/${loss!.id}`);
    expect(response.statusCode, response.body).toBe(200);
    const detail = response.json().data;
    expect(detail.releases.map((r: { release: string; journeys: number }) => [r.release, r.journeys]).sort()).toEqual([['v1', 2], ['v2', 2]]);
    expect(detail.examples).toEqual({ latest: 'jrn-3', first: 'jrn-0' });
    expect(detail.hourly.counts).toHaveLength(168);
    // The journeys ended 2026-02-10, 19 days before the API's clock: in the daily series, not the hourly one.
    expect(detail.hourly.counts.reduce((a: number, b: number) => a + b, 0)).toBe(0);
    expect(detail.daily.counts).toHaveLength(30);
    expect(detail.daily.counts[detail.daily.counts.length - 1 - 19]).toBe(4);
    const journeys = (await get(fx, ADMIN, urlWith(`${base()}/${loss!.id}/journeys`, [['limit', '3']]))).json().data;
    expect(journeys.items.map((j: { journeyId: string }) => j.journeyId)).toEqual(['jrn-3', 'jrn-2', 'jrn-1']);
    const rest = (await get(fx, ADMIN, urlWith(`${base()}/${loss!.id}/journeys`, [['cursor', journeys.nextCursor]]))).json().data;
    expect(rest).toEqual({ items: [{ journeyId: 'jrn-0', lastEventAt: '2026-02-10T10:00:05.000Z', release: 'v1' }], nextCursor: null });
  });

  it('answers 404 not_found for an unknown id, another project\'s or one that is not a uuid', async () => {
    for (const id of ['00000000-0000-0000-0000-000000000000', 'nope']) {
      const response = await get(fx, ADMIN, `${base()}/${id}`);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
  });
});

describe('PATCH /v1/projects/:projectId/problems/:problemId', () => {
  it('lets an operator change a status, not a viewer (403 forbidden), and audits the change with its actor', async () => {
    const transit = (await phone()).find((p) => p.inTransit)!;
    const refused = await patch(transit.id, { status: 'ignored' }, tokens.viewer);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('forbidden');
    const done = await patch(transit.id, { status: 'ignored', moreJourneys: 5 }, tokens.operator);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data).toMatchObject({ status: 'ignored', ignore: { until: null, moreJourneys: 5, journeysSince: 0 } });
    const audit = await fx.db.pool.query(`SELECT details, actor_kind FROM audit_log WHERE action = 'problem.status_changed'`);
    expect(audit.rows).toEqual([{ details: { problemId: transit.id, status: 'ignored', moreJourneys: 5 }, actor_kind: 'user' }]);
    // Ignored leaves the default list; named, it is listed.
    expect((await list([['path', 'customer.phone']])).items.some((p) => p.id === transit.id)).toBe(false);
    expect((await list([['path', 'customer.phone'], ['status', 'ignored']])).items.map((p) => p.id)).toEqual([transit.id]);
    expect((await patch(transit.id, { status: 'open' })).statusCode).toBe(200);
  });

  it('takes expected off the default list', async () => {
    const staging = (await phone()).find((p) => p.environment === 'staging')!;
    expect((await patch(staging.id, { status: 'expected' })).json().data.status).toBe('expected');
    expect((await list([['path', 'customer.phone']])).items.some((p) => p.id === staging.id)).toBe(false);
    expect((await list([['status', 'expected']])).items.map((p) => p.id)).toEqual([staging.id]);
  });

  it('refuses a body that is not a status change', async () => {
    const [loss] = await phone();
    for (const body of [{ status: 'closed' }, {}, { status: 'open', until: '2030-01-01T00:00:00Z' }, { status: 'ignored', until: '2020-01-01T00:00:00Z' },
      { status: 'ignored', moreJourneys: 0 }, { status: 'resolved', inNextRelease: 'yes' }, { status: 'expected', extra: 1 }]) {
      const response = await patch(loss!.id, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error.code).toBe('invalid_request');
    }
    const missing = await patch('00000000-0000-0000-0000-000000000000', { status: 'open' });
    expect(missing.json().error.code).toBe('not_found');
  });
});
