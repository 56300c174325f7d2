// The members route lists the instance's owners beside the members: they act as admin in every
// project without a role in it, so whoever reads the members sees everyone with full access.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { SAME_ORIGIN, expectCode, makePerson, sessionOf, type TestPerson } from './test-kit.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let acme: SeededProject;
let owner: TestPerson;
let admin: TestPerson;
const cookies = { admin: '', viewer: '' };

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  acme = await seedProject(db.pool, keyring, 'acme');
  owner = await makePerson(db.pool, {}, { owner: true });
  admin = await makePerson(db.pool, { [acme.projectId]: 'admin' });
  cookies.admin = await sessionOf(app, admin.email);
  cookies.viewer = await sessionOf(app, (await makePerson(db.pool, { [acme.projectId]: 'viewer' })).email);
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const members = (who: keyof typeof cookies) => app.inject({ method: 'GET', url: `/ui/api/v1/projects/${acme.projectId}/members`, headers: { cookie: cookies[who], ...SAME_ORIGIN } });

describe('GET /v1/projects/:projectId/members', () => {
  it("lists the instance's owners apart from the members, to the project's admins", async () => {
    const response = await members('admin');
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data as { items: Array<{ email: string; role: string }>; owners: Array<{ id: string; email: string; owner: boolean }> };
    expect(data.items.map((m) => m.email)).toContain(admin.email);
    expect(data.items.map((m) => m.email)).not.toContain(owner.email);
    expect(data.owners).toEqual([expect.objectContaining({ id: owner.id, email: owner.email, owner: true })]);
  });

  it('still refuses those who may not read the members', async () => {
    expectCode(await members('viewer'), 403, 'forbidden');
  });
});
