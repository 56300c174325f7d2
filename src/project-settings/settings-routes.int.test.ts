// The Settings routes of projects and environments: role rules, validation in the spec's error
// shape, settings history with before and after, and audit rows left exactly as the spec fixes.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../audit/audit-log.ts';
import { listSettingsChanges } from '../audit/settings-history.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { testEnvelope } from '../ingest/test-fixtures.ts';
import { SAME_ORIGIN, expectCode, makePerson, sessionOf } from '../teams/test-kit.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { MAX_SETTING_ENTRIES, MAX_SETTING_ENTRY_LENGTH } from '../projects/settings-input.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let fullApp: FastifyInstance;
let acme: SeededProject;
let other: SeededProject;
const cookies: Record<'owner' | 'admin' | 'operator' | 'viewer' | 'otherAdmin', string> = { owner: '', admin: '', operator: '', viewer: '', otherAdmin: '' };

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  fullApp = (await buildTestApp(db.pool, { keyring, config: { allowFullPayloadCapture: true } })).app;
  acme = await seedProject(db.pool, keyring, 'acme');
  other = await seedProject(db.pool, keyring, 'other');
  cookies.owner = await sessionOf(app, (await makePerson(db.pool, {}, { owner: true })).email);
  cookies.admin = await sessionOf(app, (await makePerson(db.pool, { [acme.projectId]: 'admin' })).email);
  cookies.operator = await sessionOf(app, (await makePerson(db.pool, { [acme.projectId]: 'operator' })).email);
  cookies.viewer = await sessionOf(app, (await makePerson(db.pool, { [acme.projectId]: 'viewer' })).email);
  cookies.otherAdmin = await sessionOf(app, (await makePerson(db.pool, { [other.projectId]: 'admin' })).email);
});
afterAll(async () => {
  await app.close();
  await fullApp.close();
  await db.drop();
});

type Who = keyof typeof cookies;
const call = (who: Who, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, on: FastifyInstance = app) =>
  on.inject({ method, url: `/ui/api${url}`, headers: { cookie: cookies[who], ...SAME_ORIGIN }, ...(payload === undefined ? {} : { payload: payload as object }) });
const env = (project: SeededProject = acme, name = 'production') => `/v1/projects/${project.projectId}/environments/${name}`;
const auditCount = async (projectId: string) => (await listAudit(db.pool, projectId)).length;

describe('POST /v1/projects and PATCH /v1/projects/:projectId', () => {
  it('lets an owner create a project, recorded as project.created with no audit row', async () => {
    const response = await call('owner', 'POST', '/v1/projects', { slug: 'shop', name: '  The shop ' });
    expect(response.statusCode, response.body).toBe(201);
    const project = response.json().data;
    expect(project).toMatchObject({ slug: 'shop', name: 'The shop', environments: [] });
    const [row] = await listSettingsChanges(db.pool, project.id);
    expect(row).toMatchObject({ action: 'project.created', subject: 'shop', before: null, after: { slug: 'shop', name: 'The shop' }, actor: { kind: 'user' } });
    expect(await auditCount(project.id)).toBe(0);
  });

  it('refuses a taken slug with 409 slug_taken, and bad bodies with 400 invalid_request naming the field', async () => {
    expectCode(await call('owner', 'POST', '/v1/projects', { slug: 'acme', name: 'Again' }), 409, 'slug_taken');
    const bad = await call('owner', 'POST', '/v1/projects', { slug: 'Not A Slug', name: 'x' });
    expectCode(bad, 400, 'invalid_request');
    expect(bad.json().error.details[0].path).toBe('slug');
    expectCode(await call('owner', 'POST', '/v1/projects', { slug: 'a'.repeat(65), name: 'x' }), 400, 'invalid_request');
    expect((await call('owner', 'POST', '/v1/projects', { slug: 'ok', name: '   ' })).json().error.details[0].path).toBe('name');
    expectCode(await call('owner', 'POST', '/v1/projects', { slug: 'ok', name: 'x'.repeat(201) }), 400, 'invalid_request');
    expectCode(await call('owner', 'POST', '/v1/projects', { slug: 'ok', name: 'x', extra: 1 }), 400, 'invalid_request');
  });

  it('refuses project admins, operators and viewers with 403 forbidden', async () => {
    for (const who of ['admin', 'operator', 'viewer'] as const) {
      expectCode(await call(who, 'POST', '/v1/projects', { slug: `by-${who}`, name: 'x' }), 403, 'forbidden');
      expectCode(await call(who, 'PATCH', `/v1/projects/${acme.projectId}`, { name: 'x' }), 403, 'forbidden');
    }
  });

  it('renames by id or slug, recording before and after; the admin token too', async () => {
    const response = await call('owner', 'PATCH', `/v1/projects/other`, { name: 'Other things' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ id: other.projectId, slug: 'other', name: 'Other things', environments: ['production'] });
    const byToken = await app.inject({ method: 'PATCH', url: `/v1/projects/${other.projectId}`, headers: bearer(TEST_ADMIN_TOKEN), payload: { name: 'Others' } });
    expect(byToken.statusCode, byToken.body).toBe(200);
    const rows = await listSettingsChanges(db.pool, other.projectId);
    expect(rows.map((r) => [r.action, r.before, r.after, r.actor.kind])).toEqual([
      ['project.renamed', { name: 'Other things' }, { name: 'Others' }, 'admin-token'],
      ['project.renamed', { name: 'Project other' }, { name: 'Other things' }, 'user'],
      // key:create made the environment of the project's first key.
      ['environment.created', null, { captureMode: 'redacted-payload', retentionDays: 30, redactionPaths: [], captureAllowlist: [] }, 'cli'],
    ]);
    expectCode(await call('owner', 'PATCH', '/v1/projects/nowhere', { name: 'x' }), 404, 'project_not_found');
  });
});

describe('GET and PATCH /v1/projects/:projectId/environments/:name', () => {
  it('shows a project admin the settings, whether full payloads are allowed, and history', async () => {
    const response = await call('admin', 'GET', env());
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ name: 'production', captureMode: 'redacted-payload', fullPayloadAllowed: false, recentEvents: [] });
    // Its one history row: key:create made it.
    expect(response.json().data.history).toMatchObject([{ action: 'environment.created', subject: 'production', before: null, actor: { kind: 'cli' } }]);
    const list = await call('admin', 'GET', `/v1/projects/${acme.projectId}/environments`);
    expect(list.json().data.items.map((e: { name: string }) => e.name)).toEqual(['production']);
    expectCode(await call('admin', 'GET', env(acme, 'staging')), 404, 'environment_not_found');
  });

  it('refuses viewers and operators with 403 forbidden, and an admin of another project as an unknown project', async () => {
    for (const who of ['viewer', 'operator'] as const) {
      expectCode(await call(who, 'GET', env()), 403, 'forbidden');
      expectCode(await call(who, 'PATCH', env(), { retentionDays: 3 }), 403, 'forbidden');
      expectCode(await call(who, 'POST', `${env()}/capture-preview`, { settings: { captureMode: 'metadata-only', redactionPaths: [], captureAllowlist: [] }, envelope: {} }), 403, 'forbidden');
    }
    expectCode(await call('otherAdmin', 'GET', env()), 404, 'project_not_found');
    expectCode(await call('otherAdmin', 'PATCH', env(), { retentionDays: 3 }), 404, 'project_not_found');
    expect((await call('otherAdmin', 'GET', env(other))).statusCode).toBe(200);
  });

  it('changes settings, records only what changed with the person, and writes no audit row', async () => {
    const audits = await auditCount(acme.projectId);
    const response = await call('admin', 'PATCH', env(), { captureMode: 'allowlisted-fields', retentionDays: 7, captureAllowlist: ['order.id'], redactionPaths: [] });
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data).toMatchObject({ captureMode: 'allowlisted-fields', retentionDays: 7, captureAllowlist: ['order.id'] });
    expect(data.history[0]).toMatchObject({
      action: 'environment.updated',
      subject: 'production',
      before: { captureMode: 'redacted-payload', retentionDays: 30, captureAllowlist: [] },
      after: { captureMode: 'allowlisted-fields', retentionDays: 7, captureAllowlist: ['order.id'] },
      actor: { kind: 'user' },
    });
    expect(Object.keys(data.history[0].after).sort()).toEqual(['captureAllowlist', 'captureMode', 'retentionDays']);
    // The same values again change nothing and record nothing.
    const again = await call('admin', 'PATCH', env(), { retentionDays: 7 });
    expect(again.json().data.history.map((row: { action: string }) => row.action)).toEqual(['environment.updated', 'environment.created']);
    expect(await auditCount(acme.projectId)).toBe(audits);
  });

  it('refuses bad settings with 400 invalid_request naming the field, changing nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{ retentionDays: 0 }, 'retentionDays'],
      [{ retentionDays: 36_501 }, 'retentionDays'],
      [{ retentionDays: 1.5 }, 'retentionDays'],
      [{ captureMode: 'everything' }, 'captureMode'],
      [{ redactionPaths: ['ok', 'a..b'] }, 'redactionPaths.1'],
      [{ captureAllowlist: ['a..b'] }, 'captureAllowlist.0'],
      [{ captureAllowlist: ['x'.repeat(MAX_SETTING_ENTRY_LENGTH + 1)] }, 'captureAllowlist.0'],
      [{ redactionPaths: Array.from({ length: MAX_SETTING_ENTRIES + 1 }, (_, i) => `k${i}`) }, 'redactionPaths'],
      [{ redactionPaths: ['a\u0000b'] }, 'redactionPaths.0'],
      [{ retention: 3 }, ''],
    ];
    const before = (await call('admin', 'GET', env())).json().data;
    for (const [payload, path] of cases) {
      const response = await call('admin', 'PATCH', env(), payload);
      expectCode(response, 400, 'invalid_request');
      expect(response.json().error.details[0].path, JSON.stringify(payload)).toBe(path);
    }
    expect((await call('admin', 'PATCH', env(), { redactionPaths: Array.from({ length: MAX_SETTING_ENTRIES }, (_, i) => `k${i}`) })).statusCode).toBe(200);
    await call('admin', 'PATCH', env(), { redactionPaths: before.redactionPaths });
    expect((await call('admin', 'GET', env())).json().data).toMatchObject({ retentionDays: before.retentionDays, captureMode: before.captureMode });
  });

  it('refuses full-payload unless ALLOW_FULL_PAYLOAD_CAPTURE is true', async () => {
    const refused = await call('admin', 'PATCH', env(), { captureMode: 'full-payload' });
    expectCode(refused, 400, 'invalid_request');
    expect(refused.json().error.details[0].path).toBe('captureMode');
    expect(refused.json().error.message).toContain('ALLOW_FULL_PAYLOAD_CAPTURE');
    const allowed = await call('admin', 'PATCH', env(), { captureMode: 'full-payload' }, fullApp);
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(allowed.json().data).toMatchObject({ captureMode: 'full-payload', fullPayloadAllowed: true, effectiveCaptureMode: 'full-payload' });
    // Set where it is allowed, the other server reads it as what capture does there.
    expect((await call('admin', 'GET', env())).json().data).toMatchObject({ captureMode: 'full-payload', effectiveCaptureMode: 'redacted-payload' });
    expect((await call('admin', 'PATCH', env(), { captureMode: 'full-payload', retentionDays: 8 })).statusCode).toBe(200);
    await call('admin', 'PATCH', env(), { captureMode: 'redacted-payload' });
  });

  it('records environment:set of the CLI too, with the CLI as actor', async () => {
    const run = await runTestCli(['environment:set', 'acme', 'production', '--retention-days', '45', '--redact', 'card.number'], { pool: db.pool, keyring });
    expect(run.code, run.err.join('\n')).toBe(0);
    const [row] = await listSettingsChanges(db.pool, acme.projectId);
    expect(row).toMatchObject({ action: 'environment.updated', subject: 'production', after: { retentionDays: 45, redactionPaths: ['card.number'] }, actor: { kind: 'cli' } });
    const bad = await runTestCli(['environment:set', 'acme', 'production', '--redact', 'a..b'], { pool: db.pool, keyring });
    expect(bad.code).toBe(2);
    expect(bad.err.join('\n')).toContain('"a..b"');
  });

  it('records project:create and project:rename of the CLI', async () => {
    expect((await runTestCli(['project:create', 'cli-made', 'Made', 'here'], { pool: db.pool, keyring })).code).toBe(0);
    expect((await runTestCli(['project:create', 'cli-made', 'Again'], { pool: db.pool, keyring })).code).toBe(1);
    const renamed = await runTestCli(['project:rename', 'cli-made', 'Made', 'there'], { pool: db.pool, keyring });
    expect(renamed.code, renamed.err.join('\n')).toBe(0);
    const projectId = (await db.pool.query<{ id: string }>("SELECT id FROM projects WHERE slug = 'cli-made'")).rows[0]!.id;
    const rows = await listSettingsChanges(db.pool, projectId);
    expect(rows.map((r) => [r.action, r.after, r.actor.kind])).toEqual([
      ['project.renamed', { name: 'Made there' }, 'cli'],
      ['project.created', { slug: 'cli-made', name: 'Made here' }, 'cli'],
    ]);
    expect((await runTestCli(['project:rename', 'nowhere', 'x'], { pool: db.pool, keyring })).code).toBe(1);
  });
});

describe('POST /v1/projects/:projectId/environments', () => {
  const create = (who: Who, payload: unknown, project = acme) => call(who, 'POST', `/v1/projects/${project.projectId}/environments`, payload);

  it('lets a project admin create an environment, recorded as environment.created with no audit row', async () => {
    const audits = await auditCount(acme.projectId);
    const response = await create('admin', { name: 'staging' });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data).toMatchObject({ name: 'staging', captureMode: 'redacted-payload', retentionDays: 30, redactionPaths: [], captureAllowlist: [] });
    expect(response.json().data.history[0]).toMatchObject({
      action: 'environment.created',
      subject: 'staging',
      before: null,
      after: { captureMode: 'redacted-payload', retentionDays: 30, redactionPaths: [], captureAllowlist: [] },
    });
    expect((await create('admin', { name: 'eu', retentionDays: 90 })).json().data.retentionDays).toBe(90);
    expect(await auditCount(acme.projectId)).toBe(audits);
    // A key of the new environment can ingest into it.
    const run = await runTestCli(['key:create', 'acme', 'staging', 'worker', '--json'], { pool: db.pool, keyring });
    const apiKey = JSON.parse(run.out[0]!).apiKey as string;
    expect((await app.inject({ method: 'POST', url: '/v1/events', headers: bearer(apiKey), payload: testEnvelope({ environment: 'staging' }) })).statusCode).toBe(202);
  });

  it('refuses a taken name with 409 environment_exists and bad names with 400 invalid_request', async () => {
    expectCode(await create('admin', { name: 'production' }), 409, 'environment_exists');
    for (const name of ['', ' padded', 'tab\there', 'x'.repeat(65)]) {
      const response = await create('admin', { name });
      expectCode(response, 400, 'invalid_request');
      expect(response.json().error.details[0].path).toBe('name');
    }
    expect((await create('admin', { name: '\u{1F600}'.repeat(64) })).statusCode).toBe(201);
    expectCode(await create('admin', { name: 'x', retentionDays: 0 }), 400, 'invalid_request');
  });

  it('refuses viewers and operators with 403 forbidden, and an admin of another project as an unknown project', async () => {
    expectCode(await create('viewer', { name: 'v' }), 403, 'forbidden');
    expectCode(await create('operator', { name: 'o' }), 403, 'forbidden');
    expectCode(await create('otherAdmin', { name: 'x' }), 404, 'project_not_found');
  });
});

describe('POST /v1/projects/:projectId/environments/:name/capture-preview', () => {
  const settings = { captureMode: 'redacted-payload', redactionPaths: ['customer.email'], captureAllowlist: [] };

  it('shows a pasted event as ingestion would store it under the rules being edited', async () => {
    const envelope = testEnvelope({ input: { customer: { email: 'a@example.com', plan: 'gold' }, password: 'hunter2' } });
    const response = await call('admin', 'POST', `${env()}/capture-preview`, { settings, envelope });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({
      refusal: null,
      effectiveCaptureMode: 'redacted-payload',
      stored: { hasInput: true, hasOutput: false, inputPayload: { customer: { email: '[REDACTED]', plan: 'gold' }, password: '[REDACTED]' }, outputPayload: null },
    });
    const metadataOnly = await call('admin', 'POST', `${env()}/capture-preview`, { settings: { ...settings, captureMode: 'metadata-only' }, envelope });
    expect(metadataOnly.json().data.stored).toMatchObject({ hasInput: false, inputPayload: null });
  });

  it("answers ingestion's refusal for an event it would refuse", async () => {
    const wrongEnvironment = await call('admin', 'POST', `${env()}/capture-preview`, { settings, envelope: testEnvelope({ environment: 'staging' }) });
    expect(wrongEnvironment.json().data).toMatchObject({ stored: null, refusal: { code: 'unauthorized_environment' } });
    const invalid = await call('admin', 'POST', `${env()}/capture-preview`, { settings, envelope: { protocolVersion: '0.1', event: {} } });
    expect(invalid.json().data.refusal.code).toBe('invalid_event');
  });

  it('recaptures a recorded event of the environment by id', async () => {
    const envelope = testEnvelope({ input: { customer: { email: 'b@example.com' }, note: 'keep' } });
    const sent = await app.inject({ method: 'POST', url: '/v1/events', headers: bearer(acme.apiKey), payload: envelope });
    expect(sent.statusCode, sent.body).toBe(202);
    const id = (envelope.event as { id: string }).id;
    const detail = (await call('admin', 'GET', env())).json().data;
    expect(detail.recentEvents.map((e: { id: string }) => e.id)).toContain(id);
    const response = await call('admin', 'POST', `${env()}/capture-preview`, { settings: { ...settings, redactionPaths: ['note'] }, eventId: id });
    expect(response.json().data.stored.inputPayload).toMatchObject({ note: '[REDACTED]' });
    expectCode(await call('admin', 'POST', `${env()}/capture-preview`, { settings, eventId: 'evt_none' }), 404, 'not_found');
    expectCode(await call('otherAdmin', 'POST', `${env(other)}/capture-preview`, { settings, eventId: id }), 404, 'not_found');
  });

  it('refuses a body without exactly one of envelope and eventId, or with bad settings', async () => {
    expectCode(await call('admin', 'POST', `${env()}/capture-preview`, { settings }), 400, 'invalid_request');
    expectCode(await call('admin', 'POST', `${env()}/capture-preview`, { settings, envelope: {}, eventId: 'x' }), 400, 'invalid_request');
    const bad = await call('admin', 'POST', `${env()}/capture-preview`, { settings: { ...settings, redactionPaths: ['a..b'] }, envelope: {} });
    expectCode(bad, 400, 'invalid_request');
    expect(bad.json().error.details[0].path).toBe('settings.redactionPaths.0');
  });
});
