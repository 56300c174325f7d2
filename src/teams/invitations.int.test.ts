// Members from Settings (docs/roles.md): project admins invite into their own project (at most
// admin, never an owner), see who has not joined with their link's expiry, re-issue a link for
// someone who belongs to their project only; a role change is kept in the settings history.
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../audit/audit-log.ts';
import { listSettingsChanges } from '../audit/settings-history.ts';
import { keyring } from '../web/test-kit.ts';
import { TEST_ADMIN_TOKEN, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { PASSWORD, SAME_ORIGIN, expectCode, makePerson, passwordSignIn, sessionOf, tokenOf } from './test-kit.ts';

let db: TestDatabase;
let app: FastifyInstance;
let own: SeededProject;
let other: SeededProject;
let adminHeaders: Record<string, string>;
let nowMs = Date.now();

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring, now: () => nowMs })).app;
  own = await seedProject(db.pool, keyring, 'invite-own');
  other = await seedProject(db.pool, keyring, 'invite-other');
  const admin = await makePerson(db.pool, { [own.projectId]: 'admin' });
  adminHeaders = bearer((await tokenOf(app, await sessionOf(app, admin.email))).secret);
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const url = (projectId: string, rest = '') => `/v1/projects/${projectId}/invitations${rest}`;
const invite = (projectId: string, payload: Record<string, unknown>, headers = adminHeaders) => app.inject({ method: 'POST', url: url(projectId), headers, payload });
const pending = async (projectId: string, headers = adminHeaders) => (await app.inject({ method: 'GET', url: url(projectId), headers })).json().data.items as { id: string; email: string; role: string; linkExpiresAt: string | null; linkExpired: boolean }[];
const setPassword = (link: string) => app.inject({ method: 'POST', url: '/ui/api/password-links', headers: SAME_ORIGIN, payload: { token: link.split('#token=')[1], password: PASSWORD } });

describe('inviting into a project', () => {
  it('lets a project admin invite a new person: an account without a password, the role, a one-time link, audit rows', async () => {
    const before = (await listAudit(db.pool, own.projectId)).length;
    const invited = await invite(own.projectId, { email: 'Ada@Example.com', name: 'Ada', role: 'admin' });
    expect(invited.statusCode, invited.body).toBe(201);
    const { member, link } = invited.json().data;
    expect(member).toEqual({ id: member.id, email: 'Ada@Example.com', name: 'Ada', role: 'admin' });
    expect((await db.pool.query('SELECT owner, password_hash FROM users WHERE id = $1', [member.id])).rows[0]).toEqual({ owner: false, password_hash: null });
    expect(link.url).toMatch(/^\/ui\/set-password#token=[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(link.expiresAt) - nowMs).toBe(72 * 3_600_000);
    const audit = await listAudit(db.pool, own.projectId);
    expect(audit.slice(before).map((r) => [r.action, r.details])).toEqual([['member.granted', { userId: member.id, email: 'Ada@Example.com', role: 'admin' }]]);
    const rows = await pending(own.projectId);
    expect(rows.find((r) => r.id === member.id)).toMatchObject({ role: 'admin', linkExpiresAt: link.expiresAt, linkExpired: false });
  });

  it('never makes an owner and grants at most admin', async () => {
    for (const payload of [{ email: 'o@example.com', role: 'viewer', owner: true }, { email: 'o@example.com', role: 'owner' }, { email: 'o@example.com' }, { email: 'not-an-address', role: 'viewer' }]) {
      const refused = await invite(own.projectId, payload);
      expectCode(refused, 400, 'invalid_request');
      expect(refused.json().error.details ?? [{ path: 'email' }]).not.toEqual([]);
    }
    expect((await db.pool.query("SELECT count(*)::int AS n FROM users WHERE lower(email) = 'o@example.com'")).rows[0].n).toBe(0);
  });

  it('adds an existing account as it is (no link), and answers already_member for someone in the project', async () => {
    const existing = await makePerson(db.pool, { [other.projectId]: 'viewer' });
    const added = await invite(own.projectId, { email: existing.email.toUpperCase(), role: 'operator' });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().data).toEqual({ member: { id: existing.id, email: existing.email, name: '', role: 'operator' }, link: null });
    expectCode(await invite(own.projectId, { email: existing.email, role: 'admin' }), 409, 'already_member');
    expect((await pending(own.projectId)).map((r) => r.id)).not.toContain(existing.id);
  });

  it("shows a project admin only who was invited and the role, never an existing account's owner flag, password state or times", async () => {
    const owner = await makePerson(db.pool, {}, { owner: true, email: 'boss@example.com' });
    await sessionOf(app, owner.email);
    const answer = await invite(own.projectId, { email: 'BOSS@example.com', role: 'viewer' });
    expect(answer.statusCode, answer.body).toBe(201);
    expect(answer.json().data).toEqual({ member: { id: owner.id, email: 'boss@example.com', name: '', role: 'viewer' }, link: null });
    for (const word of ['owner', 'hasPassword', 'createdAt', 'lastSignInAt', 'state']) expect(answer.body).not.toContain(word);
  });

  it('refuses viewers and operators with 403, and admins of another project as an unknown project', async () => {
    for (const role of ['viewer', 'operator'] as const) {
      const person = await makePerson(db.pool, { [own.projectId]: role });
      const token = bearer((await tokenOf(app, await sessionOf(app, person.email))).secret);
      expectCode(await invite(own.projectId, { email: `${role}-x@example.com`, role: 'viewer' }, token), 403, 'forbidden');
      expectCode(await app.inject({ method: 'GET', url: url(own.projectId), headers: token }), 403, 'forbidden');
    }
    expectCode(await invite(other.projectId, { email: 'elsewhere@example.com', role: 'viewer' }, adminHeaders), 404, 'project_not_found');
    expectCode(await app.inject({ method: 'GET', url: url(other.projectId), headers: adminHeaders }), 404, 'project_not_found');
  });
});

describe('hostile invitation bodies', () => {
  it('answers any JSON body with 201, 400 invalid_request or 409, never a server error', async () => {
    const owners = async () => (await db.pool.query('SELECT count(*)::int AS n FROM users WHERE owner')).rows[0].n as number;
    const ownersBefore = await owners();
    const email = fc.oneof(fc.emailAddress(), fc.string({ unit: 'binary', maxLength: 300 }), fc.anything());
    const role = fc.oneof(fc.constantFrom('viewer', 'operator', 'admin', 'owner', ''), fc.anything());
    await fc.assert(
      fc.asyncProperty(fc.record({ email, role, name: fc.oneof(fc.string({ unit: 'binary', maxLength: 220 }), fc.anything()), owner: fc.boolean() }, { requiredKeys: [] }), async (body) => {
        const response = await invite(own.projectId, body as Record<string, unknown>);
        expect([201, 400, 409], response.body).toContain(response.statusCode);
        if (response.statusCode === 201) expect(Object.keys(response.json().data.member)).toEqual(['id', 'email', 'name', 'role']);
      }),
      { numRuns: 60 },
    );
    expect(await owners()).toBe(ownersBefore);
  });
});

describe('pending invitations', () => {
  it('lists a member until they set a password, shows an expired link as expired, and re-issues one that works', async () => {
    const { member, link } = (await invite(own.projectId, { email: 'grace@example.com', role: 'viewer' })).json().data;
    nowMs += 73 * 3_600_000;
    expect((await pending(own.projectId)).find((r) => r.id === member.id)).toMatchObject({ linkExpired: true });
    expectCode(await setPassword(link.url), 404, 'not_found');
    const reissued = await app.inject({ method: 'POST', url: url(own.projectId, `/${member.id}`), headers: adminHeaders });
    expect(reissued.statusCode, reissued.body).toBe(201);
    const fresh = reissued.json().data;
    expect(fresh.url).not.toBe(link.url);
    expect((await pending(own.projectId)).find((r) => r.id === member.id)).toMatchObject({ linkExpiresAt: fresh.expiresAt, linkExpired: false });
    const trail = await db.pool.query("SELECT action FROM account_audit_log WHERE subject_user_id = $1 ORDER BY id", [member.id]);
    expect(trail.rows.map((r) => r.action)).toEqual(['user.created', 'invitation.reissued']);
    expect((await setPassword(fresh.url)).statusCode).toBe(204);
    expect((await passwordSignIn(app, 'grace@example.com', PASSWORD)).statusCode).toBe(204);
    expect((await pending(own.projectId)).map((r) => r.id)).not.toContain(member.id);
    // Joined: no invitation to re-issue.
    expectCode(await app.inject({ method: 'POST', url: url(own.projectId, `/${member.id}`), headers: adminHeaders }), 404, 'not_found');
  });

  it('leaves someone who also belongs to another project to the owners', async () => {
    const { member } = (await invite(own.projectId, { email: 'shared@example.com', role: 'viewer' })).json().data;
    await app.inject({ method: 'PUT', url: `/v1/projects/${other.projectId}/members/${member.id}`, headers: bearer(TEST_ADMIN_TOKEN), payload: { role: 'viewer' } });
    expectCode(await app.inject({ method: 'POST', url: url(own.projectId, `/${member.id}`), headers: adminHeaders }), 403, 'forbidden');
    expect((await app.inject({ method: 'POST', url: url(own.projectId, `/${member.id}`), headers: bearer(TEST_ADMIN_TOKEN) })).statusCode).toBe(201);
  });

  it('answers unknown and malformed ids with 404', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', '%00']) {
      expectCode(await app.inject({ method: 'POST', url: url(own.projectId, `/${id}`), headers: adminHeaders }), 404, 'not_found');
    }
  });
});

describe('changing a role', () => {
  it('records member.role_changed with the roles before and after, and nothing when the role stays', async () => {
    const person = await makePerson(db.pool, { [own.projectId]: 'viewer' });
    const put = (role: string) => app.inject({ method: 'PUT', url: `/v1/projects/${own.projectId}/members/${person.id}`, headers: adminHeaders, payload: { role } });
    expect((await put('operator')).statusCode).toBe(204);
    expect((await put('operator')).statusCode).toBe(204);
    const changes = (await listSettingsChanges(db.pool, own.projectId)).filter((c) => c.action === 'member.role_changed');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ subject: person.email, before: { role: 'viewer' }, after: { role: 'operator' } });
    expect(changes[0]!.actor.kind).toBe('user');
    // A first grant is no change of role.
    const fresh = await makePerson(db.pool);
    await app.inject({ method: 'PUT', url: `/v1/projects/${own.projectId}/members/${fresh.id}`, headers: adminHeaders, payload: { role: 'viewer' } });
    expect((await listSettingsChanges(db.pool, own.projectId)).filter((c) => c.action === 'member.role_changed')).toHaveLength(1);
  });
});
