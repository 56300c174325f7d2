// GET /v1/instance: owners only; version, migrations, what rotate:status says and the server-side
// doctor checks, with no secret in the answer.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { latestVersion } from '../db/migrate.ts';
import { testEnvelope } from '../ingest/test-fixtures.ts';
import { SAME_ORIGIN, expectCode, makePerson, sessionOf } from '../teams/test-kit.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';

const NEW_KEY = 'a-newer-encryption-key-0123456789abcdefghijkl';
const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let rotated: FastifyInstance;
let project: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring, config: { otlpEnabled: true } })).app;
  rotated = (await buildTestApp(db.pool, { keyring: createKeyring({ current: NEW_KEY, previous: TEST_ENCRYPTION_KEY }) })).app;
  project = await seedProject(db.pool, keyring, 'instance');
});
afterAll(async () => {
  await app.close();
  await rotated.close();
  await db.drop();
});

describe('GET /v1/instance', () => {
  it('shows an owner the version, migrations, key rotation, checks and switches', async () => {
    const owner = await makePerson(db.pool, {}, { owner: true });
    const response = await app.inject({ method: 'GET', url: '/ui/api/v1/instance', headers: { cookie: await sessionOf(app, owner.email), ...SAME_ORIGIN } });
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data).toMatchObject({
      version: '0.0.0',
      buildSource: 'package',
      migrations: { latest: latestVersion(), pending: 0 },
      keyRotation: { previousKeyId: null, done: true },
      otlpEnabled: true,
      fullPayloadCaptureAllowed: false,
    });
    expect(data.migrations.applied.at(-1)).toBe(latestVersion());
    expect(data.checks.map((c: { check: string }) => c.check)).toEqual(['database', 'role', 'migrations', 'keys']);
    expect(data.checks.find((c: { check: string }) => c.check === 'migrations').status).toBe('ok');
    expect(data.keyRotation.kinds.map((k: { kind: string }) => k.kind)).toEqual(['entityIds', 'aliasValues', 'searchTokens', 'destinationHeaders']);
    for (const secret of [TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, db.url, db.name]) expect(response.body).not.toContain(secret);
  });

  it('says what rotate:status says while data is still under the previous key', async () => {
    expect((await app.inject({ method: 'POST', url: '/v1/events', headers: bearer(project.apiKey), payload: testEnvelope() })).statusCode).toBe(202);
    const response = await rotated.inject({ method: 'GET', url: '/v1/instance', headers: bearer(TEST_ADMIN_TOKEN) });
    const data = response.json().data;
    expect(data.keyRotation.previousKeyId).not.toBeNull();
    expect(data.keyRotation.done).toBe(false);
    expect(data.keyRotation.kinds.find((k: { kind: string }) => k.kind === 'entityIds').previous).toBe(1);
    expect(data.keyRotation.apiKeys.previous).toBe(1);
    expect(data.checks.find((c: { check: string }) => c.check === 'keys')).toMatchObject({ status: 'warn' });
    expect(response.body).not.toContain(NEW_KEY);
  });

  it('refuses project admins, operators and viewers with 403 forbidden', async () => {
    for (const role of ['admin', 'operator', 'viewer'] as const) {
      const person = await makePerson(db.pool, { [project.projectId]: role });
      expectCode(await app.inject({ method: 'GET', url: '/ui/api/v1/instance', headers: { cookie: await sessionOf(app, person.email), ...SAME_ORIGIN } }), 403, 'forbidden');
    }
  });
});
