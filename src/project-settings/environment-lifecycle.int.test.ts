// Renaming and removing an environment: unique names with the create form's rules, removal only
// of an environment nothing uses (saying what blocks it otherwise), admins only, each change in
// the settings history.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSettingsChanges } from '../audit/settings-history.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { testEnvelope } from '../ingest/test-fixtures.ts';
import { SAME_ORIGIN, expectCode, makePerson, sessionOf } from '../teams/test-kit.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let acme: SeededProject;
const cookies = { admin: '', viewer: '', operator: '' };

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  acme = await seedProject(db.pool, keyring, 'acme');
  cookies.admin = await sessionOf(app, (await makePerson(db.pool, { [acme.projectId]: 'admin' })).email);
  cookies.operator = await sessionOf(app, (await makePerson(db.pool, { [acme.projectId]: 'operator' })).email);
  cookies.viewer = await sessionOf(app, (await makePerson(db.pool, { [acme.projectId]: 'viewer' })).email);
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const call = (who: keyof typeof cookies, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  app.inject({ method, url: `/ui/api${url}`, headers: { cookie: cookies[who], ...SAME_ORIGIN }, ...(payload === undefined ? {} : { payload: payload as object }) });
const env = (name: string) => `/v1/projects/${acme.projectId}/environments/${encodeURIComponent(name)}`;
const create = (name: string) => call('admin', 'POST', `/v1/projects/${acme.projectId}/environments`, { name });
const names = async () => (await call('admin', 'GET', `/v1/projects/${acme.projectId}/environments`)).json().data.items.map((e: { name: string }) => e.name);

describe('renaming an environment', () => {
  it('renames it, keeping its settings, and records the change', async () => {
    expect((await create('qa')).statusCode).toBe(201);
    const response = await call('admin', 'POST', `${env('qa')}/rename`, { name: 'Quality 2 ünïcode' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ name: 'Quality 2 ünïcode', captureMode: 'redacted-payload' });
    expect(await names()).toContain('Quality 2 ünïcode');
    expect(await names()).not.toContain('qa');
    const [latest] = await listSettingsChanges(db.pool, acme.projectId);
    expect(latest).toMatchObject({ action: 'environment.updated', subject: 'Quality 2 ünïcode', before: { name: 'qa' }, after: { name: 'Quality 2 ünïcode' }, actor: { kind: 'user' } });
    expect(response.json().data.history[0]).toMatchObject({ before: { name: 'qa' } });
  });

  it('refuses a taken name with 409 environment_exists and bad names with 400 invalid_request', async () => {
    expectCode(await call('admin', 'POST', `${env('Quality 2 ünïcode')}/rename`, { name: 'production' }), 409, 'environment_exists');
    for (const name of ['', ' padded', 'tab\there', 'x'.repeat(65)]) {
      expectCode(await call('admin', 'POST', `${env('Quality 2 ünïcode')}/rename`, { name }), 400, 'invalid_request');
    }
    expect((await call('admin', 'POST', `${env('Quality 2 ünïcode')}/rename`, { name: 'x'.repeat(64) })).statusCode).toBe(200);
    expectCode(await call('admin', 'POST', `${env('nowhere')}/rename`, { name: 'else' }), 404, 'environment_not_found');
    expect(await names()).toEqual(expect.arrayContaining(['production', 'x'.repeat(64)]));
  });
});

describe('removing an environment', () => {
  it('removes one nothing uses and records it', async () => {
    expect((await create('scratch')).statusCode).toBe(201);
    const response = await call('admin', 'DELETE', env('scratch'));
    expect(response.statusCode, response.body).toBe(204);
    expect(await names()).not.toContain('scratch');
    const [latest] = await listSettingsChanges(db.pool, acme.projectId);
    expect(latest).toMatchObject({ action: 'environment.updated', subject: 'scratch', before: { name: 'scratch', retentionDays: 30 }, after: null });
    expectCode(await call('admin', 'DELETE', env('scratch')), 404, 'environment_not_found');
  });

  it('refuses one with API keys, saying what to do', async () => {
    expect((await create('keyed')).statusCode).toBe(201);
    for (const name of ['one', 'two']) await runTestCli(['key:create', 'acme', 'keyed', name, '--json'], { pool: db.pool, keyring });
    const response = await call('admin', 'DELETE', env('keyed'));
    expectCode(response, 409, 'environment_in_use');
    expect(response.json().error.message).toBe('2 API keys use it: revoke the keys first.');
    expect(await names()).toContain('keyed');
  });

  it('refuses one holding journeys, also once its keys are revoked', async () => {
    expect((await create('busy')).statusCode).toBe(201);
    const run = await runTestCli(['key:create', 'acme', 'busy', 'worker', '--json'], { pool: db.pool, keyring });
    const { apiKey, keyPrefix } = JSON.parse(run.out[0]!) as { apiKey: string; keyPrefix: string };
    expect((await app.inject({ method: 'POST', url: '/v1/events', headers: bearer(apiKey), payload: testEnvelope({ environment: 'busy' }) })).statusCode).toBe(202);
    expect((await call('admin', 'DELETE', env('busy'))).json().error.message).toBe('1 API key and 1 journey use it: revoke the keys and delete or let retention remove the data first.');
    expect((await call('admin', 'DELETE', `/v1/api-keys/${keyPrefix}`)).statusCode).toBe(204);
    const response = await call('admin', 'DELETE', env('busy'));
    expectCode(response, 409, 'environment_in_use');
    expect(response.json().error.message).toBe('1 journey uses it: delete or let retention remove the data first.');
    expect(await names()).toContain('busy');
  });

  it('refuses viewers and operators with 403 forbidden', async () => {
    for (const who of ['viewer', 'operator'] as const) {
      expectCode(await call(who, 'DELETE', env('production')), 403, 'forbidden');
      expectCode(await call(who, 'POST', `${env('production')}/rename`, { name: 'prod' }), 403, 'forbidden');
    }
    expect(await names()).toContain('production');
  });
});
