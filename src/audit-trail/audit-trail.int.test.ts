// GET /v1/audit-log and its CSV export: every trail in one keyset order, the filters, who reads
// which rows, and the refusals in the spec's error shape.
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY } from '../../test/helpers/app.ts';
import { makePerson, sessionOf, tokenOf, SAME_ORIGIN, type TestPerson } from '../teams/test-kit.ts';
import { MAX_EXPORT_ROWS } from './audit-trail.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const ADMIN = bearer(TEST_ADMIN_TOKEN);
let db: TestDatabase;
let app: FastifyInstance;
let acme: SeededProject;
let other: SeededProject;
let acmeAdmin: TestPerson;
let acmeAdminToken: Record<string, string>;
let destinationId: string;

interface Entry {
  kind: string;
  id: string;
  time: string;
  action: string;
  project: { slug: string } | null;
  actor: { kind: string | null; email: string | null };
  subject: string | null;
  details: Record<string, unknown> | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

function get(query: string, headers: Record<string, string> = ADMIN) {
  return app.inject({ method: 'GET', url: `/v1/audit-log${query}`, headers });
}

async function items(query: string, headers: Record<string, string> = ADMIN): Promise<Entry[]> {
  const response = await get(query, headers);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data.items;
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  acme = await seedProject(db.pool, keyring, 'acme');
  other = await seedProject(db.pool, keyring, 'other');
  acmeAdmin = await makePerson(db.pool, { [acme.projectId]: 'admin', [other.projectId]: 'viewer' }, { email: 'ada@example.com' });
  acmeAdminToken = bearer((await tokenOf(app, await sessionOf(app, acmeAdmin.email))).secret);
  const headers = { ...acmeAdminToken, 'x-service-project-id': acme.projectId };
  const created = await app.inject({
    method: 'POST', url: '/v1/replay-destinations', headers,
    payload: { name: 'orders, "local"', baseUrl: 'http://replay-target.internal:9/api', environmentType: 'local', headers: { Authorization: 'Bearer secret-value-77' } },
  });
  destinationId = created.json().data.id;
  await app.inject({ method: 'PATCH', url: `/v1/replay-destinations/${destinationId}`, headers, payload: { name: '=HYPERLINK("x")', headers: { Authorization: 'Bearer secret-value-78' } } });
  await app.inject({
    method: 'POST', url: '/v1/replay-destinations', headers: { ...ADMIN, 'x-service-project-id': other.projectId },
    payload: { name: 'other', baseUrl: 'http://127.0.0.1:9', environmentType: 'test', headers: {} },
  });
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

describe('GET /v1/audit-log', () => {
  it('lists audit rows, settings changes and account rows newest first, never a header value', async () => {
    const all = await items('?limit=100');
    expect(new Set(all.map((e) => e.kind))).toEqual(new Set(['audit', 'settings', 'account']));
    const times = all.map((e) => e.time);
    expect([...times].sort().reverse()).toEqual(times);
    const edit = all.find((e) => e.kind === 'settings' && e.action === 'replay_destination.updated')!;
    expect(edit).toMatchObject({
      action: 'replay_destination.updated', subject: destinationId, project: { slug: 'acme' },
      actor: { kind: 'user', email: 'ada@example.com' },
      before: { name: 'orders, "local"', headerValuesSet: [] }, after: { name: '=HYPERLINK("x")', headerValuesSet: ['Authorization'] },
    });
    const created = all.find((e) => e.action === 'replay_destination.created' && e.project?.slug === 'acme')!;
    expect(created).toMatchObject({ kind: 'audit', details: { destinationId, name: 'orders, "local"' }, before: null, after: null });
    expect(all.find((e) => e.kind === 'account')).toMatchObject({ project: null });
    expect(JSON.stringify(all)).not.toMatch(/secret-value|replay-target/);
  });

  it('filters by actor (e-mail or kind), action, kind, project and time range', async () => {
    const ada = await items('?actor=ADA@example.com&limit=100');
    expect(ada.length).toBeGreaterThan(0);
    expect(ada.every((e) => e.actor.email === 'ada@example.com')).toBe(true);
    expect((await items('?actor=admin-token')).every((e) => e.actor.kind === 'admin-token')).toBe(true);
    expect((await items('?actor=cli')).map((e) => e.action)).toContain('api_key.created');
    expect((await items('?action=replay_destination.created')).map((e) => e.project?.slug).sort()).toEqual(['acme', 'other']);
    const settings = await items('?kind=settings&limit=100');
    expect(settings.every((e) => e.kind === 'settings')).toBe(true);
    expect(settings.map((e) => e.action)).toContain('replay_destination.updated');
    expect((await items(`?project=${other.projectId}`)).every((e) => e.project?.slug === 'other')).toBe(true);
    const newest = (await items('?limit=1'))[0]!;
    expect(await items(`?since=${encodeURIComponent('2100-01-01T00:00:00Z')}`)).toEqual([]);
    expect(await items(`?until=${encodeURIComponent('2000-01-01T00:00:00Z')}`)).toEqual([]);
    expect((await items(`?since=${encodeURIComponent(newest.time)}`)).map((e) => e.id)).toContain(newest.id);
  });

  it('pages with a stable keyset cursor that holds no filter', async () => {
    const whole = await items('?limit=100');
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const response = await get(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const page = response.json().data;
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((e: Entry) => `${e.kind}:${e.id}`));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(whole.map((e) => `${e.kind}:${e.id}`));
  });

  it('refuses bad filters with invalid_query and bad cursors with invalid_cursor, in the error shape', async () => {
    for (const query of ['?actor=somebody', '?kind=secret', '?project=acme', '?since=yesterday', '?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', '?limit=0', '?color=red', '?action=a&action=b', `?actor=${'a'.repeat(321)}@x`]) {
      const response = await get(query);
      expect([response.statusCode, response.json().error.code], query).toEqual([400, 'invalid_query']);
      expect(response.json().error.details[0]).toEqual({ path: expect.any(String), message: expect.any(String) });
    }
    for (const cursor of ['x', 'eyJrIjoiaiJ9', Buffer.from(JSON.stringify({ k: 'audit', t: '2026-01-01T00:00:00.000000Z', s: 'audit', id: '0' })).toString('base64url')]) {
      const response = await get(`?cursor=${cursor}`);
      expect([response.statusCode, response.json().error.code], cursor).toEqual([400, 'invalid_cursor']);
    }
  });

  it('shows a project admin the rows of their projects only; viewers and operators get 403', async () => {
    const mine = await items('?limit=100', acmeAdminToken);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((e) => e.project?.slug === 'acme')).toBe(true);
    const refused = await get(`?project=${other.projectId}`, acmeAdminToken);
    expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'forbidden']);
    const header = await get('', { ...acmeAdminToken, 'x-service-project-id': other.projectId });
    expect(header.json().error.code).toBe('forbidden');
    for (const role of ['viewer', 'operator'] as const) {
      const person = await makePerson(db.pool, { [acme.projectId]: role });
      const token = bearer((await tokenOf(app, await sessionOf(app, person.email))).secret);
      for (const query of ['', `?project=${acme.projectId}`]) {
        const response = await get(query, token);
        expect([response.statusCode, response.json().error.code], `${role} ${query}`).toEqual([403, 'forbidden']);
      }
      const hidden = await get(`?project=${other.projectId}`, token);
      expect(hidden.json().error.code).toBe('project_not_found');
    }
    const owner = await makePerson(db.pool, {}, { owner: true });
    const ownerToken = bearer((await tokenOf(app, await sessionOf(app, owner.email))).secret);
    expect(new Set((await items('?limit=100', ownerToken)).map((e) => e.kind))).toEqual(new Set(['audit', 'settings', 'account']));
    const apiKey = await get('', bearer(acme.apiKey));
    expect(apiKey.json().error.code).toBe('unauthorized');
  });

  it('is served to the interface under /ui/api with the session', async () => {
    const cookie = await sessionOf(app, acmeAdmin.email);
    const response = await app.inject({ method: 'GET', url: '/ui/api/v1/audit-log?kind=settings&action=replay_destination.updated', headers: { cookie, ...SAME_ORIGIN } });
    expect(response.json().data.items.map((e: Entry) => e.action)).toEqual(['replay_destination.updated']);
  });
});

describe('GET /v1/audit-log.csv', () => {
  it('exports the filtered rows as quoted CSV with formula cells defused', async () => {
    const response = await app.inject({ method: 'GET', url: `/v1/audit-log.csv?project=${acme.projectId}`, headers: ADMIN });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toContain('attachment');
    expect(response.headers['x-jtrace-truncated']).toBe('false');
    const lines = response.body.split('\r\n');
    expect(lines[0]).toBe('"time","kind","action","project","actor","actor_email","actor_key_prefix","client_address","subject","details","before","after"');
    expect(lines.at(-1)).toBe('');
    const listed = await items(`?project=${acme.projectId}&limit=100`);
    expect(lines.length - 2).toBe(listed.length);
    const edit = lines.find((line) => line.includes('replay_destination.updated'))!;
    expect(edit).toContain('"{""name"":""orders, \\""local\\"""",""headerValuesSet"":[]}"');
    expect(response.body).not.toMatch(/secret-value|other/);
    const filtered = await app.inject({ method: 'GET', url: '/v1/audit-log.csv?kind=settings&actor=ada@example.com', headers: ADMIN });
    expect(filtered.body.split('\r\n').filter(Boolean)).toHaveLength(2);
    const refused = await app.inject({ method: 'GET', url: '/v1/audit-log.csv?cursor=x', headers: ADMIN });
    expect(refused.json().error.code).toBe('invalid_query');
    const viewer = await makePerson(db.pool, { [acme.projectId]: 'viewer' });
    const token = bearer((await tokenOf(app, await sessionOf(app, viewer.email))).secret);
    expect((await app.inject({ method: 'GET', url: '/v1/audit-log.csv', headers: token })).json().error.code).toBe('forbidden');
  });
});

describe('rows sharing one instant', () => {
  it('pages through them in (time, kind, id) order without repeating or skipping any', async () => {
    const at = '2030-01-01T00:00:00Z';
    for (let i = 0; i < 5; i++) {
      await db.pool.query(`INSERT INTO audit_log (project_id, action, details, actor_kind, created_at) VALUES ($1, 'api_key.revoked', '{}', 'cli', $2)`, [acme.projectId, at]);
      await db.pool.query(`INSERT INTO settings_changes (project_id, action, subject, actor_kind, created_at) VALUES ($1, 'project.renamed', 'acme', 'cli', $2)`, [acme.projectId, at]);
      await db.pool.query(`INSERT INTO account_audit_log (action, details, actor_kind, created_at) VALUES ('user.enabled', '{}', 'cli', $1)`, [at]);
    }
    const range = `since=${encodeURIComponent(at)}&until=${encodeURIComponent('2030-01-02T00:00:00Z')}`;
    const whole = (await items(`?${range}&limit=100`)).map((e) => `${e.kind}:${e.id}`);
    expect(whole).toHaveLength(15);
    expect(whole.slice(0, 5).every((key) => key.startsWith('settings:'))).toBe(true);
    expect(whole.slice(10).every((key) => key.startsWith('account:'))).toBe(true);
    const paged: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { items: Entry[]; nextCursor: string | null } = (await get(`?${range}&limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json().data;
      paged.push(...page.items.map((e) => `${e.kind}:${e.id}`));
      cursor = page.nextCursor;
    }
    expect(paged).toEqual(whole);
    await db.pool.query(`DELETE FROM audit_log WHERE created_at = $1`, [at]);
    await db.pool.query(`DELETE FROM settings_changes WHERE created_at = $1`, [at]);
    await db.pool.query(`DELETE FROM account_audit_log WHERE created_at = $1`, [at]);
  });
});

describe('hostile queries', () => {
  it('answers any query string with 200 or a 400 in the error shape, never a 500', async () => {
    const names = fc.constantFrom('actor', 'action', 'kind', 'project', 'since', 'until', 'limit', 'cursor', 'other');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(names, fc.string({ unit: 'binary', maxLength: 40 })), { maxLength: 4 }), async (pairs) => {
        const query = pairs.map(([name, value]) => `${name}=${encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, ''))}`).join('&');
        for (const url of [`/v1/audit-log?${query}`, `/v1/audit-log.csv?${query}`]) {
          const response = await app.inject({ method: 'GET', url, headers: ADMIN });
          expect([200, 400], `${url}: ${response.body.slice(0, 200)}`).toContain(response.statusCode);
          if (response.statusCode === 400) expect(['invalid_query', 'invalid_cursor', 'bad_url']).toContain(response.json().error.code);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('export bound', () => {
  it(`exports at most ${MAX_EXPORT_ROWS} rows and says when more matched`, async () => {
    await db.pool.query(
      `INSERT INTO account_audit_log (action, details, actor_kind, created_at)
       SELECT 'user.created', '{}', 'cli', now() - make_interval(secs => n) FROM generate_series(1, $1::int) AS n`,
      [MAX_EXPORT_ROWS + 1],
    );
    const response = await app.inject({ method: 'GET', url: '/v1/audit-log.csv?kind=account&actor=cli', headers: ADMIN });
    expect(response.headers['x-jtrace-truncated']).toBe('true');
    expect(response.body.split('\r\n').filter(Boolean)).toHaveLength(MAX_EXPORT_ROWS + 1);
    const fewer = await app.inject({ method: 'GET', url: `/v1/audit-log.csv?kind=account&actor=cli&since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`, headers: ADMIN });
    expect(fewer.headers['x-jtrace-truncated']).toBe('false');
  });
});
