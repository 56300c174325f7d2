// What people may reach (docs/roles.md): nothing of a project without a role, 403 forbidden
// below the route's role, personal tokens with their owner's roles until revoked, sessions that
// end when the person is disabled, loses a role, resets the password or signs out.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditActors } from '../audit/audit-log.ts';
import { TEST_ADMIN_TOKEN, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { ingest } from '../deletion/test-fixtures.ts';
import { keyring } from '../web/test-kit.ts';
import { SAME_ORIGIN, expectCode, makePerson, sessionOf, tokenOf } from './test-kit.ts';

let db: TestDatabase;
let app: FastifyInstance;
let visible: SeededProject;
let hidden: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  visible = await seedProject(db.pool, keyring, 'visible');
  hidden = await seedProject(db.pool, keyring, 'hidden');
  await ingest(app, visible.apiKey, [{ journeyId: 'j-visible', entityId: 'customer-1', id: 'e-visible' }]);
  await ingest(app, hidden.apiKey, [{ journeyId: 'j-hidden', entityId: 'customer-2', id: 'e-hidden', input: { a: 1 } }]);
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const get = (url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url, headers });
const asUi = (cookie: string) => ({ cookie, ...SAME_ORIGIN });

describe('a person without a role in a project', () => {
  it('gets 404 for its journeys, events, search and forensics, exactly as an unknown project or journey', async () => {
    const viewer = await makePerson(db.pool, { [visible.projectId]: 'viewer' });
    const { secret } = await tokenOf(app, await sessionOf(app, viewer.email));
    const named = { ...bearer(secret), 'x-service-project-id': hidden.projectId };
    const unknown = { ...bearer(secret), 'x-service-project-id': '00000000-0000-4000-8000-000000000000' };
    for (const url of ['/v1/journeys/j-hidden', '/v1/journeys/j-hidden/events', '/v1/events/e-hidden', '/v1/search?q=customer-2', '/v1/journeys?since=2026-01-01T00:00:00Z', '/v1/journeys/j-hidden/changes', '/v1/journeys/j-hidden/fields?path=a']) {
      const refused = await get(url, named);
      expectCode(refused, 404, 'project_not_found');
      expect(refused.json().error.message).toBe((await get(url, unknown)).json().error.message);
    }
    // Without the header the one project they see is read: the other's journey is simply not there.
    const own = bearer(secret);
    expect((await get('/v1/journeys/j-visible', own)).statusCode).toBe(200);
    expectCode(await get('/v1/journeys/j-hidden', own), 404, 'not_found');
    expectCode(await get('/v1/events/e-hidden', own), 404, 'not_found');
    expect((await get('/v1/search?q=customer-2', own)).json().data.items).toEqual([]);
    expect((await get('/v1/projects', own)).json().data.items.map((p: { slug: string }) => p.slug)).toEqual(['visible']);
  });
});

describe('a role too low', () => {
  it("answers a viewer's replay, delete and erasure with 403 forbidden, and lets an operator act", async () => {
    const viewer = await makePerson(db.pool, { [visible.projectId]: 'viewer' });
    const operator = await makePerson(db.pool, { [visible.projectId]: 'operator' });
    const viewerToken = (await tokenOf(app, await sessionOf(app, viewer.email))).secret;
    const operatorToken = (await tokenOf(app, await sessionOf(app, operator.email))).secret;
    const replay = { eventId: 'e-visible', destinationId: '00000000-0000-4000-8000-000000000000', path: '/x' };
    expectCode(await app.inject({ method: 'POST', url: '/v1/replays', headers: bearer(viewerToken), payload: replay }), 403, 'forbidden');
    expectCode(await app.inject({ method: 'DELETE', url: '/v1/journeys/j-visible', headers: bearer(viewerToken) }), 403, 'forbidden');
    expectCode(await app.inject({ method: 'POST', url: '/v1/erasures', headers: bearer(viewerToken), payload: { value: 'customer-1' } }), 403, 'forbidden');
    expectCode(await app.inject({ method: 'POST', url: '/v1/replays', headers: bearer(operatorToken), payload: replay }), 404, 'not_found');
    expectCode(await app.inject({ method: 'POST', url: '/v1/replay-destinations', headers: bearer(operatorToken), payload: {} }), 403, 'forbidden');
    expectCode(await app.inject({ method: 'GET', url: '/v1/users', headers: bearer(operatorToken) }), 403, 'forbidden');
  });

  it('an erasure by a person writes erasure.completed with that person and their address as actor', async () => {
    const project = await seedProject(db.pool, keyring, 'erased-by-person');
    await ingest(app, project.apiKey, [{ journeyId: 'j-erase', entityId: 'subject-9' }]);
    const operator = await makePerson(db.pool, { [project.projectId]: 'operator' });
    const token = (await tokenOf(app, await sessionOf(app, operator.email))).secret;
    const erased = await app.inject({ method: 'POST', url: '/v1/erasures', headers: { ...bearer(token), 'x-service-project-id': project.projectId }, payload: { value: 'subject-9' }, remoteAddress: '192.0.2.44' });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json().data).toMatchObject({ deletedJourneys: 1, complete: true });
    const actors = await listAuditActors(db.pool, project.projectId);
    expect(actors.filter((a) => a.action === 'erasure.completed')).toEqual([
      { action: 'erasure.completed', kind: 'user', userId: operator.id, email: operator.email, keyPrefix: null, clientAddress: '192.0.2.44' },
    ]);
    // The admin token is named as such.
    await ingest(app, project.apiKey, [{ journeyId: 'j-erase-2', entityId: 'subject-10' }]);
    await app.inject({ method: 'DELETE', url: '/v1/journeys/j-erase-2', headers: { ...bearer(TEST_ADMIN_TOKEN), 'x-service-project-id': project.projectId }, remoteAddress: '192.0.2.45' });
    expect((await listAuditActors(db.pool, project.projectId)).find((a) => a.action === 'journey.deleted')).toMatchObject({ kind: 'admin-token', clientAddress: '192.0.2.45' });
  });
});

describe('personal access tokens', () => {
  it("act with their owner's roles, follow a role change, and stop at revocation", async () => {
    const person = await makePerson(db.pool, { [visible.projectId]: 'operator' });
    const cookie = await sessionOf(app, person.email);
    const token = await tokenOf(app, cookie);
    expect(token.secret).toMatch(/^jtp_[A-Za-z0-9_-]{32}$/);
    const listed = await get('/ui/api/v1/me/tokens', asUi(cookie));
    expect(JSON.stringify(listed.json())).not.toContain(token.secret);
    expect((await get('/v1/journeys/j-visible', bearer(token.secret))).statusCode).toBe(200);
    // Narrowed by the admin: the next request has the new role.
    const project = { 'x-service-project-id': visible.projectId };
    const narrowed = await app.inject({ method: 'PUT', url: `/v1/projects/${visible.projectId}/members/${person.id}`, headers: bearer(TEST_ADMIN_TOKEN), payload: { role: 'viewer' } });
    expect(narrowed.statusCode).toBe(204);
    expectCode(await app.inject({ method: 'DELETE', url: '/v1/journeys/j-none', headers: { ...bearer(token.secret), ...project } }), 403, 'forbidden');
    const revoked = await app.inject({ method: 'DELETE', url: `/ui/api/v1/me/tokens/${token.id}`, headers: asUi(cookie) });
    expect(revoked.statusCode).toBe(204);
    expectCode(await get('/v1/journeys/j-visible', bearer(token.secret)), 401, 'unauthorized');
    expectCode(await app.inject({ method: 'DELETE', url: `/ui/api/v1/me/tokens/${token.id}`, headers: asUi(cookie) }), 404, 'not_found');
  });

  it('stop at their expiry, and are never accepted for ingestion', async () => {
    const person = await makePerson(db.pool, { [visible.projectId]: 'admin' });
    const cookie = await sessionOf(app, person.email);
    const soon = new Date(Date.now() + 1500).toISOString();
    const made = await app.inject({ method: 'POST', url: '/ui/api/v1/me/tokens', headers: asUi(cookie), payload: { name: 'short', expiresAt: soon } });
    expect(made.statusCode, made.body).toBe(201);
    const secret = made.json().data.secret as string;
    expect((await get('/v1/journeys/j-visible', bearer(secret))).statusCode).toBe(200);
    expectCode(await app.inject({ method: 'POST', url: '/v1/events/batch', headers: bearer(secret), payload: { events: [] } }), 401, 'unauthorized');
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expectCode(await get('/v1/journeys/j-visible', bearer(secret)), 401, 'unauthorized');
    const past = await app.inject({ method: 'POST', url: '/ui/api/v1/me/tokens', headers: asUi(cookie), payload: { name: 'past', expiresAt: '2020-01-01T00:00:00Z' } });
    expectCode(past, 400, 'invalid_request');
  });
});

describe('sessions of people', () => {
  it('disabling a user makes their next request 401 from every session and token', async () => {
    const person = await makePerson(db.pool, { [visible.projectId]: 'viewer' });
    const first = await sessionOf(app, person.email);
    const second = await sessionOf(app, person.email);
    const token = (await tokenOf(app, first)).secret;
    const sessions = await get('/ui/api/v1/me/sessions', asUi(first));
    expect(sessions.json().data.items).toHaveLength(2);
    expect(sessions.json().data.items.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    const disabled = await app.inject({ method: 'PATCH', url: `/v1/users/${person.id}`, headers: bearer(TEST_ADMIN_TOKEN), payload: { state: 'disabled' } });
    expect(disabled.json().data.state).toBe('disabled');
    for (const cookie of [first, second]) {
      expectCode(await get('/ui/api/v1/journeys/j-visible', asUi(cookie)), 401, 'unauthorized');
      expectCode(await get('/ui/api/session', asUi(cookie)), 401, 'unauthorized');
    }
    expectCode(await get('/v1/journeys/j-visible', bearer(token)), 401, 'unauthorized');
    // Enabled again, the old sessions and tokens stay ended (docs/roles.md).
    await app.inject({ method: 'PATCH', url: `/v1/users/${person.id}`, headers: bearer(TEST_ADMIN_TOKEN), payload: { state: 'active' } });
    expectCode(await get('/ui/api/session', asUi(first)), 401, 'unauthorized');
    expectCode(await get('/v1/journeys/j-visible', bearer(token)), 401, 'unauthorized');
  });

  it('removing the role narrows the session at once; a person ends their own other session', async () => {
    const person = await makePerson(db.pool, { [visible.projectId]: 'viewer' });
    const cookie = await sessionOf(app, person.email);
    const other = await sessionOf(app, person.email);
    expect((await get('/ui/api/v1/journeys/j-visible', asUi(cookie))).statusCode).toBe(200);
    const session = await get('/ui/api/session', asUi(cookie));
    expect(session.json().data).toMatchObject({ signedInAs: 'user', user: { email: person.email, owner: false }, projects: [{ projectId: visible.projectId, role: 'viewer' }] });
    const removed = await app.inject({ method: 'DELETE', url: `/v1/projects/${visible.projectId}/members/${person.id}`, headers: bearer(TEST_ADMIN_TOKEN) });
    expect(removed.statusCode).toBe(204);
    expectCode(await get('/ui/api/v1/journeys/j-visible', { ...asUi(cookie), 'x-service-project-id': visible.projectId }), 404, 'project_not_found');
    const otherId = (await get('/ui/api/v1/me/sessions', asUi(cookie))).json().data.items.find((s: { current: boolean }) => !s.current).id;
    expect((await app.inject({ method: 'DELETE', url: `/ui/api/v1/me/sessions/${otherId}`, headers: asUi(cookie) })).statusCode).toBe(204);
    expectCode(await get('/ui/api/session', asUi(other)), 401, 'unauthorized');
    expect((await get('/ui/api/session', asUi(cookie))).statusCode).toBe(200);
  });

  it('signing out ends the stored session, also for a copy of the cookie', async () => {
    const person = await makePerson(db.pool, {});
    const cookie = await sessionOf(app, person.email);
    expect((await app.inject({ method: 'DELETE', url: '/ui/api/session', headers: asUi(cookie) })).statusCode).toBe(204);
    expectCode(await get('/ui/api/session', asUi(cookie)), 401, 'unauthorized');
  });

  it('changing the admin token ends the sessions of people too', async () => {
    const person = await makePerson(db.pool, {});
    const cookie = await sessionOf(app, person.email);
    const rotated = (await buildTestApp(db.pool, { keyring, adminToken: 'another-admin-token-0123456789abcdefghijklmn' })).app;
    try {
      expectCode(await rotated.inject({ method: 'GET', url: '/ui/api/session', headers: asUi(cookie) }), 401, 'unauthorized');
    } finally {
      await rotated.close();
    }
  });
});

describe('owners', () => {
  it('refuse a second account for an e-mail in another case with 409 email_taken', async () => {
    const first = await app.inject({ method: 'POST', url: '/v1/users', headers: bearer(TEST_ADMIN_TOKEN), payload: { email: 'Dup@Example.com' } });
    expect(first.statusCode).toBe(201);
    expect(first.json().data.link.url).toMatch(/^\/ui\/set-password#token=[A-Za-z0-9_-]{43}$/);
    expectCode(await app.inject({ method: 'POST', url: '/v1/users', headers: bearer(TEST_ADMIN_TOKEN), payload: { email: 'dup@example.COM' } }), 409, 'email_taken');
    expectCode(await app.inject({ method: 'POST', url: '/v1/users', headers: bearer(TEST_ADMIN_TOKEN), payload: { email: 'not an address' } }), 400, 'invalid_request');
  });
});
