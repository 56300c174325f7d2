import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { searchTokenForWrite } from '../crypto/search-tokens.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { admin, auditRows, ingest, journeyIds, keyFor } from './test-fixtures.ts';

const OLD_KEY = 'erasure-old-key-0123456789abcdefghijklmnopqrstu';
const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const VALUE = 'Subject-42';
const UUID_VALUE = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;
let other: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  project = await seedProject(db.pool, keyring, 'erase');
  other = await seedProject(db.pool, keyring, 'erase-other');
  const stagingKey = await keyFor(db.pool, keyring, 'erase', 'staging');
  await ingest(app, project.apiKey, [
    { journeyId: 'j-entity', entityId: VALUE, timestamp: '2026-01-10T10:00:00.000Z' },
    { journeyId: 'j-alias', entityId: 'x-1', aliases: { customerRef: VALUE }, timestamp: '2026-01-11T10:00:00.000Z' },
    { journeyId: 'j-payload', entityId: 'x-2', input: { note: VALUE }, timestamp: '2026-01-12T10:00:00.000Z' },
    { journeyId: 'j-trace', entityId: 'x-3', traceId: VALUE, timestamp: '2026-01-13T10:00:00.000Z' },
    { journeyId: VALUE, entityId: 'x-4' },
    { journeyId: 'j-case', entityId: VALUE.toLowerCase() },
    { journeyId: 'j-uuid', entityId: UUID_VALUE },
  ]);
  await ingest(app, stagingKey, [{ journeyId: 'j-staging', entityId: VALUE, environment: 'staging', timestamp: '2026-01-14T10:00:00.000Z' }]);
  await ingest(app, other.apiKey, [{ journeyId: 'j-other', entityId: VALUE }]);
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const erase = (body: unknown, headers: Record<string, string> = admin(project.projectId)) =>
  app.inject({
    method: 'POST',
    url: '/v1/erasures',
    headers: { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

describe('POST /v1/erasures input', () => {
  it.each([
    ['no value', {}],
    ['a value that is not a string', { value: 42 }],
    ['an empty value', { value: '' }],
    ['a white-space value', { value: ' \t\n ' }],
    ['a NUL in the value', { value: 'a\u0000b' }],
    ['a value over 512 characters', { value: 'v'.repeat(513) }],
    ['an empty environment', { value: VALUE, environment: '' }],
    ['an environment that is not a string', { value: VALUE, environment: 7 }],
    ['a NUL in the environment', { value: VALUE, environment: 'prod\u0000' }],
    ['an unpaired high surrogate in the value', { value: 'a\uD800b' }],
    ['an unpaired low surrogate in the value', { value: '\uDC00' }],
    ['an unpaired surrogate in the environment', { value: VALUE, environment: 'prod\uD800' }],
    ['dryRun that is not a boolean', { value: VALUE, dryRun: 'true' }],
    ['an unknown field', { value: VALUE, dry_run: true }],
    ['a body that is not an object', [VALUE]],
    ['a null body', null],
  ])('refuses %s with 400 invalid_request and deletes nothing', async (_name, body) => {
    const response = await erase(body);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
    expect(response.body).not.toContain(VALUE);
    expect(await journeyIds(db.pool, project.projectId)).toContain('j-entity');
  });

  it('refuses a missing body with 400 invalid_request', async () => {
    const response = await app.inject({ method: 'POST', url: '/v1/erasures', headers: admin(project.projectId) });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
  });

  it('accepts a value of exactly 512 characters', async () => {
    const response = await erase({ value: 'é'.repeat(512), dryRun: true });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({ journeys: [], total: 0 });
  });

  it('answers 404 environment_not_found, 404 project_not_found and 401 for an API key', async () => {
    const unknownEnvironment = await erase({ value: VALUE, environment: 'nowhere' });
    expect(unknownEnvironment.statusCode).toBe(404);
    expect(unknownEnvironment.json().error.code).toBe('environment_not_found');
    const noProject = await erase({ value: VALUE }, bearer(TEST_ADMIN_TOKEN));
    expect(noProject.statusCode).toBe(404);
    expect(noProject.json().error.code).toBe('project_not_found');
    const apiKey = await erase({ value: VALUE }, bearer(project.apiKey));
    expect(apiKey.statusCode).toBe(401);
    expect(apiKey.json().error.code).toBe('unauthorized');
    expect(await auditRows(db.pool, project.projectId, 'erasure.completed')).toEqual([]);
  });
});

describe('POST /v1/erasures', () => {
  it('dry run lists entity-id and alias matches, most recent first, and writes nothing', async () => {
    const response = await erase({ value: `  ${VALUE} `, dryRun: true });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({
      journeys: [
        { id: 'j-staging', environment: 'staging', entityType: 'order', eventCount: 1, lastEventAt: '2026-01-14T10:00:00.000Z' },
        { id: 'j-alias', environment: 'production', entityType: 'order', eventCount: 1, lastEventAt: '2026-01-11T10:00:00.000Z' },
        { id: 'j-entity', environment: 'production', entityType: 'order', eventCount: 1, lastEventAt: '2026-01-10T10:00:00.000Z' },
      ],
      total: 3,
    });
    const staging = await erase({ value: VALUE, environment: 'staging', dryRun: true });
    expect(staging.json().data.journeys.map((j: { id: string }) => j.id)).toEqual(['j-staging']);
    expect(await auditRows(db.pool, project.projectId, 'erasure.completed')).toEqual([]);
    expect(await journeyIds(db.pool, project.projectId)).toHaveLength(8);
  });

  it('erases one environment only when it is named, with a row holding its name and the token', async () => {
    const response = await erase({ value: VALUE, environment: 'staging' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: { deletedJourneys: 1, deletedEvents: 1, complete: true } });
    expect(await journeyIds(db.pool, project.projectId)).not.toContain('j-staging');
    const [row] = await auditRows(db.pool, project.projectId, 'erasure.completed');
    const token = searchTokenForWrite(keyring, VALUE);
    expect(row!.details).toEqual({
      searchToken: token.token,
      searchTokenKeyId: token.keyId,
      environment: 'staging',
      deletedJourneys: 1,
      deletedEvents: 1,
      complete: true,
    });
  });

  it('erases entity-id and alias matches only: not payloads, trace ids, journey ids, other cases or other projects', async () => {
    const response = await erase({ value: VALUE });
    expect(response.json()).toEqual({ data: { deletedJourneys: 2, deletedEvents: 2, complete: true } });
    expect(await journeyIds(db.pool, project.projectId)).toEqual([VALUE, 'j-case', 'j-payload', 'j-trace', 'j-uuid']);
    expect(await journeyIds(db.pool, other.projectId)).toEqual(['j-other']);
    const rows = await auditRows(db.pool, project.projectId, 'erasure.completed');
    expect(rows).toHaveLength(2);
    expect(rows[1]!.details).not.toHaveProperty('environment');
    expect(rows[1]!.details).toMatchObject({ deletedJourneys: 2, deletedEvents: 2, complete: true });
  });

  it('matches a UUID in any case with surrounding white space (normalized like search)', async () => {
    const response = await erase({ value: ` ${UUID_VALUE.toUpperCase()}\n` });
    expect(response.json().data).toEqual({ deletedJourneys: 1, deletedEvents: 1, complete: true });
    expect(await journeyIds(db.pool, project.projectId)).not.toContain('j-uuid');
  });

  it('finds values indexed under the previous key during a rotation', async () => {
    const oldKeyring = createKeyring({ current: OLD_KEY });
    const oldApp = (await buildTestApp(db.pool, { keyring: oldKeyring })).app;
    const rotated = await seedProject(db.pool, oldKeyring, 'erase-rotated');
    await ingest(oldApp, rotated.apiKey, [{ journeyId: 'j-old', entityId: 'rotated-1' }]);
    await oldApp.close();
    const newKeyring = createKeyring({ current: TEST_ENCRYPTION_KEY, previous: OLD_KEY });
    const newApp = (await buildTestApp(db.pool, { keyring: newKeyring })).app;
    const response = await newApp.inject({
      method: 'POST',
      url: '/v1/erasures',
      headers: { ...admin(rotated.projectId), 'content-type': 'application/json' },
      payload: JSON.stringify({ value: 'rotated-1' }),
    });
    await newApp.close();
    expect(response.json().data).toEqual({ deletedJourneys: 1, deletedEvents: 1, complete: true });
  });

  it('never writes the value, a URL or an entity id into any audit row', async () => {
    const all = await db.pool.query<{ details: unknown }>('SELECT details FROM audit_log');
    const text = JSON.stringify(all.rows).toLowerCase();
    for (const secret of [VALUE.toLowerCase(), UUID_VALUE, 'rotated-1', 'http://', 'https://']) expect(text).not.toContain(secret);
  });
});

describe('delete:identifier', () => {
  const cli = (argv: string[]) => runTestCli(argv, { pool: db.pool, keyring });

  it('lists with --dry-run and deletes nothing', async () => {
    const run = await cli(['delete:identifier', 'erase-other', VALUE, '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.out[0]).toBe('would delete 1 journey (nothing was deleted)');
    expect(run.out[1]).toMatch(/^j-other\tproduction\torder\t1 events\tlast event 2026-01-10T10:00:00\.000Z$/);
    expect(await journeyIds(db.pool, other.projectId)).toEqual(['j-other']);
    expect(await auditRows(db.pool, other.projectId, 'erasure.completed')).toEqual([]);
  });

  it('erases and exits 0, with the same audit row as the route', async () => {
    const run = await cli(['delete:identifier', 'erase-other', VALUE, '--environment', 'production']);
    expect(run.code).toBe(0);
    expect(run.out).toEqual(['deleted 1 journeys (1 events)']);
    expect(await journeyIds(db.pool, other.projectId)).toEqual([]);
    const [row] = await auditRows(db.pool, other.projectId, 'erasure.completed');
    expect(row!.details).toMatchObject({ environment: 'production', deletedJourneys: 1, complete: true });
  });

  it('takes a value that begins with a dash after --', async () => {
    await ingest(app, project.apiKey, [{ journeyId: 'j-dash', entityId: '-dash-id' }]);
    expect((await cli(['delete:identifier', 'erase', '-dash-id'])).code).toBe(2);
    const run = await cli(['delete:identifier', 'erase', '--', '-dash-id']);
    expect(run.code).toBe(0);
    expect(await journeyIds(db.pool, project.projectId)).not.toContain('j-dash');
  });

  it('exits 1 for a white-space value, an unknown project or environment; 2 for usage errors', async () => {
    const before = (await auditRows(db.pool, project.projectId, 'erasure.completed')).length;
    expect((await cli(['delete:identifier', 'erase', '   '])).code).toBe(1);
    expect((await cli(['delete:identifier', 'no-such-project', VALUE])).code).toBe(1);
    expect((await cli(['delete:identifier', 'erase', VALUE, '--environment', 'nowhere'])).code).toBe(1);
    expect((await cli(['delete:identifier', 'erase'])).code).toBe(2);
    expect((await cli(['delete:identifier', 'erase', VALUE, '--dry-run=yes'])).code).toBe(2);
    expect((await auditRows(db.pool, project.projectId, 'erasure.completed')).length).toBe(before);
  });
});
