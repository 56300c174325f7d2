import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../audit/audit-log.ts';
import { decryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { createPool } from '../db/pool.ts';
import { TEST_ADMIN_TOKEN, bearer, type SeededProject } from '../../test/helpers/app.ts';
import type { TestDatabase } from '../../test/helpers/database.ts';
import { deleteDestination } from './destinations.ts';
import { admin, closeDestinationTestBed, createDestinationVia, ingestEvent, openDestinationTestBed, replay, type Target } from './test-kit.ts';

const SECRET = 'Bearer destination-secret-0042';
const VALID = { name: 'Local orders', baseUrl: 'http://127.0.0.1:4010/api', environmentType: 'local', headers: { Authorization: SECRET } };

let db: TestDatabase;
let app: FastifyInstance;
let keyring: Keyring;
let target: Target;
let acme: SeededProject;
let other: SeededProject;

function post(projectId: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/v1/replay-destinations',
    headers: { ...admin(projectId), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

function remove(projectId: string, id: string) {
  return app.inject({ method: 'DELETE', url: `/v1/replay-destinations/${id}`, headers: admin(projectId) });
}

beforeAll(async () => {
  ({ db, app, keyring, acme, other, target } = await openDestinationTestBed());
});
afterAll(() => closeDestinationTestBed({ db, app, target }));

describe('POST /v1/replay-destinations', () => {
  it('answers 201 with the destination, never its header values, and stores them encrypted', async () => {
    const response = await post(acme.projectId, { ...VALID, baseUrl: 'HTTP://127.0.0.1:4010/api/', unknown: 'ignored' });
    expect(response.statusCode, response.body).toBe(201);
    const data = response.json().data;
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Local orders',
      baseUrl: 'http://127.0.0.1:4010/api',
      environmentType: 'local',
      headerNames: ['Authorization'],
      disabled: false,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(response.body).not.toContain('destination-secret');
    const row = await db.pool.query<{ headers_encrypted: string; header_names: string[] }>(
      'SELECT headers_encrypted, header_names FROM replay_destinations WHERE id = $1',
      [data.id],
    );
    expect(row.rows[0]!.headers_encrypted).not.toContain('destination-secret');
    expect(JSON.parse(decryptField(keyring, row.rows[0]!.headers_encrypted)!)).toEqual({ Authorization: SECRET });
  });

  it('accepts every environment type and empty headers', async () => {
    for (const environmentType of ['local', 'development', 'test']) {
      const response = await post(acme.projectId, { ...VALID, environmentType, headers: {} });
      expect(response.statusCode).toBe(201);
      expect(response.json().data.headerNames).toEqual([]);
    }
  });

  it.each([
    ['production', 'invalid_environment_type'],
    ['LOCAL', 'invalid_environment_type'],
    ['', 'invalid_environment_type'],
    [3, 'invalid_request'],
    ['local\u0000', 'invalid_request'],
  ])('environmentType %j is %s', async (environmentType, code) => {
    const response = await post(acme.projectId, { ...VALID, environmentType });
    expect([response.statusCode, response.json().error.code]).toEqual([400, code]);
  });

  it.each([
    ['missing name', { ...VALID, name: undefined }, 'name'],
    ['blank name', { ...VALID, name: '   ' }, 'name'],
    ['name not a string', { ...VALID, name: 5 }, 'name'],
    ['NUL in name', { ...VALID, name: 'a\u0000b' }, 'name'],
    ['missing baseUrl', { ...VALID, baseUrl: undefined }, 'baseUrl'],
    ['baseUrl not a string', { ...VALID, baseUrl: {} }, 'baseUrl'],
    ['NUL in baseUrl', { ...VALID, baseUrl: 'http://127.0.0.1/\u0000' }, 'baseUrl'],
    ['unpaired surrogate in name', { ...VALID, name: 'local \ud800' }, 'name'],
    ['unpaired low surrogate in name', { ...VALID, name: '\udc00' }, 'name'],
    ['unpaired surrogate in baseUrl', { ...VALID, baseUrl: 'http://127.0.0.1/api\ud800' }, 'baseUrl'],
    ['unpaired surrogate in a header value', { ...VALID, headers: { 'x-y': 'a\ud800' } }, 'headers.x-y'],
    ['relative baseUrl', { ...VALID, baseUrl: '/api' }, 'baseUrl'],
    ['protocol-relative baseUrl', { ...VALID, baseUrl: '//127.0.0.1/api' }, 'baseUrl'],
    ['ftp baseUrl', { ...VALID, baseUrl: 'ftp://127.0.0.1/api' }, 'baseUrl'],
    ['baseUrl with a query', { ...VALID, baseUrl: 'http://127.0.0.1/api?x=1' }, 'baseUrl'],
    ['baseUrl with a fragment', { ...VALID, baseUrl: 'http://127.0.0.1/api#x' }, 'baseUrl'],
    ['baseUrl with user info', { ...VALID, baseUrl: 'http://u:p@127.0.0.1/api' }, 'baseUrl'],
    ['baseUrl with ..', { ...VALID, baseUrl: 'http://127.0.0.1/api/../admin' }, 'baseUrl'],
    ['baseUrl with encoded ..', { ...VALID, baseUrl: 'http://127.0.0.1/api/%2E%2e/admin' }, 'baseUrl'],
    ['baseUrl with .', { ...VALID, baseUrl: 'http://127.0.0.1/./api' }, 'baseUrl'],
    ['missing headers', { ...VALID, headers: undefined }, 'headers'],
    ['headers an array', { ...VALID, headers: [] }, 'headers'],
    ['header name not a token', { ...VALID, headers: { 'x y': 'v' } }, 'headers'],
    ['header value not a string', { ...VALID, headers: { 'x-y': 1 } }, 'headers.x-y'],
    ['CR LF in a header value', { ...VALID, headers: { 'x-y': 'a\r\nInjected: 1' } }, 'headers.x-y'],
    ['NUL in a header value', { ...VALID, headers: { 'x-y': 'a\u0000' } }, 'headers.x-y'],
    ['NUL in a header name', { ...VALID, headers: { 'x-y\u0000': 'a' } }, 'headers'],
  ])('%s is 400 invalid_request at %s', async (_label, body, path) => {
    const response = await post(acme.projectId, body);
    expect(response.statusCode, response.body).toBe(400);
    const error = response.json().error;
    expect(error.code).toBe('invalid_request');
    expect(error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(response.body).not.toContain('\\u0000');
  });

  it('refuses a missing or non-object body with invalid_request', async () => {
    const missing = await app.inject({ method: 'POST', url: '/v1/replay-destinations', headers: admin(acme.projectId) });
    expect([missing.statusCode, missing.json().error.code]).toEqual([400, 'invalid_request']);
    for (const body of [[], 'text', null]) {
      const response = await post(acme.projectId, body);
      expect([response.statusCode, response.json().error.code]).toEqual([400, 'invalid_request']);
    }
  });
});

describe('GET /v1/replay-destinations', () => {
  it('lists the project’s destinations newest first, without header values', async () => {
    const first = await createDestinationVia(app, other.projectId, { name: 'first', baseUrl: target.origin, headers: { 'X-Key': SECRET } });
    const second = await createDestinationVia(app, other.projectId, { name: 'second', baseUrl: target.origin });
    const response = await app.inject({ method: 'GET', url: '/v1/replay-destinations', headers: admin(other.projectId) });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.items.map((d: { id: string }) => d.id)).toEqual([second.id, first.id]);
    expect(response.json().data.items[1]).toMatchObject({ name: 'first', headerNames: ['X-Key'], disabled: false });
    expect(response.body).not.toContain('destination-secret');
    const query = await app.inject({ method: 'GET', url: '/v1/replay-destinations?limit=1', headers: admin(other.projectId) });
    expect([query.statusCode, query.json().error.code]).toEqual([400, 'invalid_query']);
  });
});

describe('DELETE /v1/replay-destinations/:destinationId', () => {
  it('deletes the destination and its runs, writing an audit row without URL or header values', async () => {
    const destination = await createDestinationVia(app, acme.projectId, { name: 'to delete', baseUrl: `${target.origin}/hook`, headers: { 'X-Key': SECRET } });
    const eventId = await ingestEvent(app, acme.apiKey, { input: { a: 1 } });
    for (let i = 0; i < 2; i++) expect((await replay(app, acme.projectId, { eventId, destinationId: destination.id, path: '/' })).statusCode).toBe(200);
    const response = await remove(acme.projectId, destination.id.toUpperCase());
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    const left = await db.pool.query('SELECT 1 FROM replay_runs WHERE destination_id = $1 UNION ALL SELECT 1 FROM replay_destinations WHERE id = $1', [destination.id]);
    expect(left.rowCount).toBe(0);
    const audit = await listAudit(db.pool, acme.projectId);
    expect(audit.find((row) => row.action === 'replay_destination.deleted')?.details).toEqual({
      destinationId: destination.id,
      name: 'to delete',
      runsDeleted: 2,
    });
    expect(audit.find((row) => row.action === 'replay_destination.created' && row.details.destinationId === destination.id)?.details).toEqual({
      destinationId: destination.id,
      name: 'to delete',
    });
    const everything = JSON.stringify(await db.pool.query('SELECT details FROM audit_log').then((r) => r.rows));
    expect(everything).not.toContain('127.0.0.1');
    expect(everything).not.toContain('destination-secret');
    expect(everything).not.toContain('http');
    expect([(await remove(acme.projectId, destination.id)).statusCode]).toEqual([404]);
  });

  it.each([
    ['not a uuid', 'nope', 404, 'not_found'],
    ['512 characters, not a uuid', 'a'.repeat(512), 404, 'not_found'],
    ['over 512 characters', 'a'.repeat(513), 400, 'invalid_request'],
    ['NUL', 'a%00b', 400, 'invalid_request'],
    ['unknown uuid', '6f1f0a52-52c8-4c3a-9d0e-1c1a1b1c1d1e', 404, 'not_found'],
  ])('%s: %i %s', async (_label, id, status, code) => {
    const response = await remove(acme.projectId, id);
    expect([response.statusCode, response.json().error.code]).toEqual([status, code]);
  });

  it('does not delete another project’s destination', async () => {
    const foreign = await createDestinationVia(app, other.projectId, { baseUrl: target.origin });
    expect((await remove(acme.projectId, foreign.id)).statusCode).toBe(404);
    expect((await db.pool.query('SELECT 1 FROM replay_destinations WHERE id = $1', [foreign.id])).rowCount).toBe(1);
  });

  it('lifts the statement timeout: a delete waiting on a locked run still finishes', async () => {
    const destination = await createDestinationVia(app, acme.projectId, { baseUrl: target.origin });
    const eventId = await ingestEvent(app, acme.apiKey, { input: { a: 1 } });
    const run = (await replay(app, acme.projectId, { eventId, destinationId: destination.id, path: '/' })).json().data;
    const strictPool = createPool({ connectionString: db.url, max: 2, statementTimeoutMs: 50 });
    const blocker = await db.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM replay_runs WHERE id = $1 FOR UPDATE', [run.id]);
      // Settled into a value at once, so a timeout shows as a failed expectation, not an unhandled rejection.
      const deleting = deleteDestination(strictPool, acme.projectId, destination.id).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await blocker.query('COMMIT');
      expect(await deleting).toEqual({ destinationId: destination.id, name: 'local orders', runsDeleted: 1 });
    } finally {
      blocker.release();
      await strictPool.end();
    }
  });
});

describe('credentials and project selection', () => {
  it('refuses an API key and a missing project header among several projects', async () => {
    const withKey = await app.inject({ method: 'GET', url: '/v1/replay-destinations', headers: bearer(acme.apiKey), remoteAddress: '198.51.100.77' });
    expect([withKey.statusCode, withKey.json().error.code]).toEqual([401, 'unauthorized']);
    const noProject = await app.inject({ method: 'GET', url: '/v1/replay-destinations', headers: bearer(TEST_ADMIN_TOKEN) });
    expect([noProject.statusCode, noProject.json().error.code]).toEqual([404, 'project_not_found']);
    const created = await post(acme.projectId, VALID, { 'x-service-project-id': 'not-a-uuid' });
    expect([created.statusCode, created.json().error.code]).toEqual([404, 'project_not_found']);
  });
});
