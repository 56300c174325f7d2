// API keys from Settings (docs/api.md): listed without secrets, created with the secret answered
// once and the request's actor recorded, revoked by prefix in the key's own project only; a
// revoked key answers 401 on ingestion at once, on every instance.
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit, listAuditActors } from '../audit/audit-log.ts';
import { listSettingsChanges } from '../audit/settings-history.ts';
import { createPool } from '../db/pool.ts';
import { envelope } from '../deletion/test-fixtures.ts';
import { SAME_ORIGIN, expectCode, makePerson, sessionOf, tokenOf } from '../teams/test-kit.ts';
import { keyring } from '../web/test-kit.ts';
import { TEST_ADMIN_TOKEN, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';

let db: TestDatabase;
let app: FastifyInstance;
let own: SeededProject;
let other: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  own = await seedProject(db.pool, keyring, 'keys-own');
  other = await seedProject(db.pool, keyring, 'keys-other');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const adminToken = bearer(TEST_ADMIN_TOKEN);
const keysUrl = (projectId: string) => `/v1/projects/${projectId}/api-keys`;
const create = (projectId: string, payload: unknown, headers: Record<string, string> = adminToken) =>
  app.inject({ method: 'POST', url: keysUrl(projectId), headers, payload: payload as Record<string, unknown> });
const revoke = (prefix: string, headers: Record<string, string> = adminToken, on = app) => on.inject({ method: 'DELETE', url: `/v1/api-keys/${prefix}`, headers });
const ingestOne = (apiKey: string, on = app) =>
  on.inject({ method: 'POST', url: '/v1/events', headers: { ...bearer(apiKey), 'content-type': 'application/json' }, payload: JSON.stringify(envelope({ journeyId: 'j-key', entityId: 'c-1' })) });

describe('creating and listing API keys', () => {
  it('answers the secret once, records the creator, writes api_key.created and lists the key without its secret', async () => {
    const before = (await listAudit(db.pool, own.projectId)).length;
    const created = await create(own.projectId, { name: '  Checkout service  ', environment: 'production' });
    expect(created.statusCode, created.body).toBe(201);
    const { key, apiKey } = created.json().data;
    expect(apiKey).toMatch(/^jtk_[A-Za-z0-9_-]{32}$/);
    expect(key).toMatchObject({ prefix: apiKey.slice(0, 12), name: 'Checkout service', environment: 'production', createdBy: { kind: 'admin-token', email: null, keyPrefix: null }, lastUsedAt: null, revokedAt: null });
    expect((await ingestOne(apiKey)).statusCode).toBe(202);

    const listed = await app.inject({ method: 'GET', url: keysUrl(own.projectId), headers: adminToken });
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(apiKey);
    const items = listed.json().data.items as { prefix: string; lastUsedAt: string | null; createdBy: unknown }[];
    expect(items[0]!.prefix).toBe(key.prefix);
    expect(items[0]!.lastUsedAt).not.toBeNull();
    expect(items.map((i) => i.prefix)).toContain(own.keyPrefix);
    expect(items.map((i) => i.prefix)).not.toContain(other.keyPrefix);
    expect(Object.keys(items[0]!).sort()).toEqual(['createdAt', 'createdBy', 'environment', 'lastUsedAt', 'name', 'prefix', 'revokedAt']);

    const audit = await listAudit(db.pool, own.projectId);
    expect(audit.slice(before).map((row) => [row.action, row.details])).toEqual([['api_key.created', { keyPrefix: key.prefix }]]);
  });

  it('makes a missing environment with the default retention and records it in the history, not the audit log', async () => {
    const admin = await makePerson(db.pool, { [own.projectId]: 'admin' });
    const cookie = await sessionOf(app, admin.email);
    const created = await app.inject({ method: 'POST', url: `/ui/api${keysUrl(own.projectId)}`, headers: { cookie, ...SAME_ORIGIN }, payload: { name: 'staging key', environment: 'staging' } });
    expect(created.statusCode, created.body).toBe(201);
    const { key, apiKey } = created.json().data;
    expect(key.createdBy).toEqual({ kind: 'user', email: admin.email, keyPrefix: null });
    const history = await listSettingsChanges(db.pool, own.projectId);
    expect(history[0]).toMatchObject({ action: 'environment.created', subject: 'staging', before: null, after: { captureMode: 'redacted-payload', retentionDays: 30 } });
    expect(history[0]!.actor).toMatchObject({ kind: 'user', email: admin.email });
    expect(JSON.stringify(history)).not.toContain(apiKey);
    const actors = await listAuditActors(db.pool, own.projectId);
    expect(actors.at(-1)).toMatchObject({ action: 'api_key.created', kind: 'user', userId: admin.id, email: admin.email });
    expect(actors.filter((a) => !a.action.startsWith('api_key.') && !a.action.startsWith('member.'))).toEqual([]);
    // An existing environment is not recorded again.
    await create(own.projectId, { name: 'second staging key', environment: 'staging' });
    expect((await listSettingsChanges(db.pool, own.projectId)).filter((c) => c.action === 'environment.created' && c.subject === 'staging')).toHaveLength(1);
  });

  it('lists keys made before creators were recorded with createdBy null', async () => {
    const listed = async () => (await app.inject({ method: 'GET', url: keysUrl(own.projectId), headers: adminToken })).json().data.items as { prefix: string; createdBy: unknown }[];
    // key:create records the CLI as the creator.
    expect((await listed()).find((i) => i.prefix === own.keyPrefix)!.createdBy).toEqual({ kind: 'cli', email: null, keyPrefix: null });
    await db.pool.query('UPDATE api_keys SET created_by_kind = NULL WHERE prefix = $1', [own.keyPrefix]);
    const items = (await app.inject({ method: 'GET', url: keysUrl(own.projectId), headers: adminToken })).json().data.items as { prefix: string; createdBy: unknown }[];
    expect(items.find((i) => i.prefix === own.keyPrefix)!.createdBy).toBeNull();
  });

  it('refuses bad bodies with invalid_request and its details, before anything is written', async () => {
    const before = (await listAudit(db.pool, own.projectId)).length;
    const cases: [unknown, string][] = [
      [{ environment: 'production' }, 'name'],
      [{ name: '   ', environment: 'production' }, 'name'],
      [{ name: 'x'.repeat(201), environment: 'production' }, 'name'],
      [{ name: 'ok', environment: 'e'.repeat(65) }, 'environment'],
      [{ name: 'ok', environment: 'bad\u0000env' }, 'environment'],
      [{ name: 'ok\ud800', environment: 'production' }, 'name'],
      [{ name: 'ok', environment: 42 }, 'environment'],
      [{ name: 'ok', environment: 'production', owner: true }, 'owner'],
    ];
    for (const [payload, path] of cases) {
      const refused = await create(own.projectId, payload);
      expectCode(refused, 400, 'invalid_request');
      expect(refused.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    expectCode(await app.inject({ method: 'POST', url: keysUrl(own.projectId), headers: adminToken }), 400, 'invalid_request');
    expectCode(await app.inject({ method: 'POST', url: keysUrl(own.projectId), headers: { ...adminToken, 'content-type': 'application/json' }, payload: '[1]' }), 400, 'invalid_request');
    expect((await listAudit(db.pool, own.projectId)).length).toBe(before);
  });

  it('answers any JSON body with 201 or 400 invalid_request, never a server error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ name: fc.oneof(fc.string({ maxLength: 210 }), fc.anything()), environment: fc.oneof(fc.string({ maxLength: 70 }), fc.string({ unit: 'binary', maxLength: 70 }), fc.anything()) }, { requiredKeys: [] }), async (body) => {
        const response = await create(other.projectId, body);
        if (response.statusCode !== 201) expectCode(response, 400, 'invalid_request');
        else expect(response.json().data.apiKey).toMatch(/^jtk_/);
      }),
      { numRuns: 60 },
    );
  });
});

describe('who may manage keys', () => {
  it('refuses viewers and operators with 403 forbidden, on every key route', async () => {
    for (const role of ['viewer', 'operator'] as const) {
      const person = await makePerson(db.pool, { [own.projectId]: role });
      const token = bearer((await tokenOf(app, await sessionOf(app, person.email))).secret);
      expectCode(await app.inject({ method: 'GET', url: keysUrl(own.projectId), headers: token }), 403, 'forbidden');
      expectCode(await create(own.projectId, { name: 'nope', environment: 'production' }, token), 403, 'forbidden');
      expectCode(await revoke(own.keyPrefix, token), 403, 'forbidden');
    }
    expect((await ingestOne(own.apiKey)).statusCode).toBe(202);
  });

  it("lets a project admin act in their project only: another project's keys answer as unknown ones", async () => {
    const admin = await makePerson(db.pool, { [own.projectId]: 'admin' });
    const token = bearer((await tokenOf(app, await sessionOf(app, admin.email))).secret);
    expect((await app.inject({ method: 'GET', url: keysUrl(own.projectId), headers: token })).statusCode).toBe(200);
    expectCode(await app.inject({ method: 'GET', url: keysUrl(other.projectId), headers: token }), 404, 'project_not_found');
    expectCode(await create(other.projectId, { name: 'nope', environment: 'production' }, token), 404, 'project_not_found');
    // The selection header plays no part: the key's own project decides.
    const hidden = await revoke(other.keyPrefix, { ...token, 'x-service-project-id': own.projectId });
    const unknown = await revoke('jtk_ZZZZZZZZ', token);
    expectCode(hidden, 404, 'not_found');
    expectCode(unknown, 404, 'not_found');
    expect(hidden.json().error.message).toBe(unknown.json().error.message);
    expect((await ingestOne(other.apiKey)).statusCode).toBe(202);
  });

  it('refuses an API key on the admin routes with 401', async () => {
    expectCode(await app.inject({ method: 'GET', url: keysUrl(own.projectId), headers: bearer(own.apiKey) }), 401, 'unauthorized');
    expectCode(await revoke(own.keyPrefix, bearer(own.apiKey)), 401, 'unauthorized');
  });
});

describe('revoking a key', () => {
  it('writes api_key.revoked, lists it as revoked and turns ingestion away at once on every instance', async () => {
    const second = createPool({ connectionString: db.url, max: 2, statementTimeoutMs: 0 });
    const other2 = (await buildTestApp(second, { keyring })).app;
    try {
      const { key, apiKey } = (await create(own.projectId, { name: 'to revoke', environment: 'production' })).json().data;
      expect((await ingestOne(apiKey, other2)).statusCode).toBe(202);
      const admin = await makePerson(db.pool, { [own.projectId]: 'admin' });
      const cookie = await sessionOf(app, admin.email);
      const revoked = await app.inject({ method: 'DELETE', url: `/ui/api/v1/api-keys/${key.prefix}`, headers: { cookie, ...SAME_ORIGIN } });
      expect(revoked.statusCode, revoked.body).toBe(204);
      expectCode(await ingestOne(apiKey), 401, 'unauthorized');
      expectCode(await ingestOne(apiKey, other2), 401, 'unauthorized');
      const actors = await listAuditActors(db.pool, own.projectId);
      expect(actors.at(-1)).toMatchObject({ action: 'api_key.revoked', kind: 'user', email: admin.email });
      expect((await listAudit(db.pool, own.projectId)).at(-1)!.details).toEqual({ keyPrefix: key.prefix });
      const items = (await app.inject({ method: 'GET', url: keysUrl(own.projectId), headers: adminToken })).json().data.items as { prefix: string; revokedAt: string | null }[];
      expect(items.find((i) => i.prefix === key.prefix)!.revokedAt).not.toBeNull();
      // Once revoked, the prefix names no active key; no second audit row.
      expectCode(await revoke(key.prefix), 404, 'not_found');
      expect((await listAudit(db.pool, own.projectId)).filter((r) => r.action === 'api_key.revoked')).toHaveLength(1);
    } finally {
      await other2.close();
      await second.end();
    }
  });

  it('answers any prefix with 204 or 404, never a server error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), async (prefix) => {
        const response = await revoke(encodeURIComponent(prefix));
        expect([404], response.body).toContain(response.statusCode);
      }),
      { numRuns: 100 },
    );
  });

  it('answers malformed prefixes with 404 before any query, and over-long ones with 414', async () => {
    for (const prefix of ['jtk_%00AAAAAAA', 'nope', encodeURIComponent('jtk_AAAAAAAA '), 'jtk_AAAAAAAAA']) expectCode(await revoke(prefix), 404, 'not_found');
    expectCode(await revoke('a'.repeat(1200)), 414, 'parameter_too_long');
  });
});
