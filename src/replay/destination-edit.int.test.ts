// PATCH /v1/replay-destinations/:id and POST /v1/replay-destinations/url-check: edits, the
// write-only header values, the history rows, and who may call them.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../audit/audit-log.ts';
import { listSettingsChanges } from '../audit/settings-history.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { bearer, type SeededProject } from '../../test/helpers/app.ts';
import type { TestDatabase } from '../../test/helpers/database.ts';
import { makePerson, sessionOf, tokenOf } from '../teams/test-kit.ts';
import { admin, closeDestinationTestBed, createDestinationVia, ingestEvent, openDestinationTestBed, replay, type Target } from './test-kit.ts';

const SECRET = 'Bearer kept-secret-value-0042';
const NEW_SECRET = 'rotated-secret-value-0043';

let db: TestDatabase;
let app: FastifyInstance;
let keyring: Keyring;
let target: Target;
let acme: SeededProject;
let other: SeededProject;

function patch(projectId: string, id: string, body: unknown, headers: Record<string, string> = admin(projectId)) {
  return app.inject({
    method: 'PATCH',
    url: `/v1/replay-destinations/${id}`,
    headers: { ...headers, 'x-service-project-id': projectId, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

function urlCheck(projectId: string, baseUrl: unknown, headers: Record<string, string> = admin(projectId)) {
  return app.inject({
    method: 'POST',
    url: '/v1/replay-destinations/url-check',
    headers: { ...headers, 'x-service-project-id': projectId, 'content-type': 'application/json' },
    payload: JSON.stringify({ baseUrl }),
  });
}

async function historyOf(projectId: string, id: string) {
  return (await listSettingsChanges(db.pool, projectId)).filter((row) => row.subject === id);
}

beforeAll(async () => {
  ({ db, app, keyring, acme, other, target } = await openDestinationTestBed());
});
afterAll(() => closeDestinationTestBed({ db, app, target }));

describe('PATCH /v1/replay-destinations/:destinationId', () => {
  it('edits name and headers; a header left out keeps its value, unread', async () => {
    const created = await createDestinationVia(app, acme.projectId, { name: 'orders', baseUrl: `${target.origin}/new`, headers: { Authorization: SECRET, 'X-Drop': 'dropped-value-123' } });
    const auditBefore = await listAudit(db.pool, acme.projectId);

    // The stored base URL in another spelling is no change of URL: the kept value needs no restating.
    const response = await patch(acme.projectId, created.id, {
      name: '  orders v2 ',
      baseUrl: `${target.origin.toUpperCase().replace('HTTP', 'http')}/new/`,
      headers: { 'X-Tenant': NEW_SECRET, 'x-drop': null },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ id: created.id, name: 'orders v2', baseUrl: `${target.origin}/new`, headerNames: ['Authorization', 'X-Tenant'], disabled: false });
    expect(response.json().data).not.toHaveProperty('runCount');
    expect(response.body).not.toContain('kept-secret');
    expect(response.body).not.toContain(NEW_SECRET);

    // The kept value is still sent: the edit never needed to know it.
    const eventId = await ingestEvent(app, acme.apiKey, { input: { a: 1 } });
    expect((await replay(app, acme.projectId, { eventId, destinationId: created.id, path: '/x' })).statusCode).toBe(200);
    const sent = target.requests.at(-1)!;
    expect(sent.url).toBe('/new/x');
    expect(sent.headers.authorization).toBe(SECRET);
    expect(sent.headers['x-tenant']).toBe(NEW_SECRET);
    expect(sent.headers['x-drop']).toBeUndefined();

    const [row, ...rest] = await historyOf(acme.projectId, created.id);
    expect(rest).toEqual([]);
    expect(row).toMatchObject({
      action: 'replay_destination.updated',
      before: { name: 'orders', headerNames: ['Authorization', 'X-Drop'], headerValuesSet: [] },
      after: { name: 'orders v2', headerNames: ['Authorization', 'X-Tenant'], headerValuesSet: ['X-Tenant'] },
      actor: { kind: 'admin-token' },
    });
    expect(JSON.stringify(row)).not.toMatch(/secret-value|dropped-value/);
    // Edits write no audit row (section 6 lists none).
    expect(await listAudit(db.pool, acme.projectId)).toEqual(auditBefore);
    // The run count a delete would remove is opt-in: the spec's item shape stays as it is.
    const listed = await app.inject({ method: 'GET', url: '/v1/replay-destinations?include=runCount', headers: admin(acme.projectId) });
    expect(listed.json().data.items.find((d: { id: string }) => d.id === created.id).runCount).toBe(1);
    const plain = await app.inject({ method: 'GET', url: '/v1/replay-destinations', headers: admin(acme.projectId) });
    expect(plain.json().data.items.every((d: object) => !('runCount' in d))).toBe(true);
    const wrong = await app.inject({ method: 'GET', url: '/v1/replay-destinations?include=headers', headers: admin(acme.projectId) });
    expect([wrong.statusCode, wrong.json().error.code]).toEqual([400, 'invalid_query']);
  });

  it('refuses a new base URL unless every stored header is given again, a new value or null', async () => {
    const created = await createDestinationVia(app, acme.projectId, { baseUrl: `${target.origin}/a`, headers: { Authorization: SECRET, 'X-Tenant': 'tenant-value-1234' } });
    const eventId = await ingestEvent(app, acme.apiKey, { input: { a: 1 } });

    // The stored values were given for /a: carried silently to another URL they could reach any allowed host.
    for (const [body, missing] of [
      [{ baseUrl: `${target.origin}/b` }, 'Authorization, X-Tenant'],
      [{ baseUrl: `${target.origin}/b`, name: 'moved', headers: { authorization: NEW_SECRET } }, 'X-Tenant'],
    ] as const) {
      const refused = await patch(acme.projectId, created.id, body);
      expect([refused.statusCode, refused.json().error.code], JSON.stringify(body)).toEqual([400, 'invalid_request']);
      expect(refused.json().error.details).toEqual([{ path: 'headers', message: `a new base URL needs every stored header given again, a new value or null: ${missing}` }]);
      expect(refused.body).not.toMatch(/kept-secret|tenant-value/);
    }
    // Nothing changed: same URL, same values, no history row.
    expect((await replay(app, acme.projectId, { eventId, destinationId: created.id, path: '/x' })).statusCode).toBe(200);
    expect(target.requests.at(-1)).toMatchObject({ url: '/a/x', headers: { authorization: SECRET, 'x-tenant': 'tenant-value-1234' } });
    expect(await historyOf(acme.projectId, created.id)).toEqual([]);

    const moved = await patch(acme.projectId, created.id, { baseUrl: `${target.origin}/b`, headers: { authorization: NEW_SECRET, 'x-tenant': null } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data).toMatchObject({ baseUrl: `${target.origin}/b`, headerNames: ['authorization'] });
    expect((await replay(app, acme.projectId, { eventId, destinationId: created.id, path: '/x' })).statusCode).toBe(200);
    const sent = target.requests.at(-1)!;
    expect(sent.url).toBe('/b/x');
    expect(sent.headers.authorization).toBe(NEW_SECRET);
    expect(sent.headers['x-tenant']).toBeUndefined();
    // The history says every header that went with the URL was given anew (names only).
    const [row, ...rest] = await historyOf(acme.projectId, created.id);
    expect(rest).toEqual([]);
    expect(row).toMatchObject({
      action: 'replay_destination.updated',
      before: { baseUrl: `${target.origin}/a`, headerNames: ['Authorization', 'X-Tenant'], headerValuesSet: [] },
      after: { baseUrl: `${target.origin}/b`, headerNames: ['authorization'], headerValuesSet: ['authorization'] },
    });
    expect(JSON.stringify(row)).not.toMatch(/secret-value|tenant-value/);

    // Dropping every header is a way too; a destination without headers moves freely.
    const bare = await createDestinationVia(app, acme.projectId, { baseUrl: `${target.origin}/a`, headers: { 'X-Only': 'only-value-1234' } });
    const dropped = await patch(acme.projectId, bare.id, { baseUrl: `${target.origin}/c`, headers: { 'x-only': null } });
    expect(dropped.json().data).toMatchObject({ baseUrl: `${target.origin}/c`, headerNames: [] });
    expect((await patch(acme.projectId, bare.id, { baseUrl: `${target.origin}/d` })).json().data.baseUrl).toBe(`${target.origin}/d`);
  });

  it('replaces a value by its name in any case, and records a value change with the same names', async () => {
    const created = await createDestinationVia(app, acme.projectId, { baseUrl: target.origin, headers: { Authorization: SECRET } });
    const response = await patch(acme.projectId, created.id, { headers: { authorization: NEW_SECRET } });
    expect(response.json().data.headerNames).toEqual(['authorization']);
    const [row] = await historyOf(acme.projectId, created.id);
    expect(row).toMatchObject({ before: { headerNames: ['Authorization'], headerValuesSet: [] }, after: { headerNames: ['authorization'], headerValuesSet: ['authorization'] } });
  });

  it('disables and enables through `disabled`, with a history row each and none for no change', async () => {
    const created = await createDestinationVia(app, acme.projectId, { baseUrl: target.origin });
    expect((await patch(acme.projectId, created.id, { disabled: true })).json().data.disabled).toBe(true);
    const eventId = await ingestEvent(app, acme.apiKey, { input: { a: 1 } });
    expect((await replay(app, acme.projectId, { eventId, destinationId: created.id, path: '/' })).json().error.code).toBe('destination_disabled');
    expect((await patch(acme.projectId, created.id, { disabled: true })).statusCode).toBe(200);
    expect((await patch(acme.projectId, created.id, { disabled: false, name: 'back' })).json().data).toMatchObject({ disabled: false, name: 'back' });
    const rows = await historyOf(acme.projectId, created.id);
    expect(rows.map((row) => [row.action, row.before, row.after])).toEqual([
      ['replay_destination.enabled', { disabled: true }, { disabled: false }],
      ['replay_destination.updated', { name: 'local orders' }, { name: 'back' }],
      ['replay_destination.disabled', { disabled: false }, { disabled: true }],
    ]);
    // An empty patch changes nothing and records nothing.
    expect((await patch(acme.projectId, created.id, {})).statusCode).toBe(200);
    expect(await historyOf(acme.projectId, created.id)).toHaveLength(3);
  });

  it('refuses bad bodies with invalid_request and every problem in details', async () => {
    const created = await createDestinationVia(app, acme.projectId, { baseUrl: target.origin, headers: { Authorization: SECRET } });
    const refused = await patch(acme.projectId, created.id, {
      name: ' ',
      baseUrl: 'http://user:pw@127.0.0.1/a/../b',
      headers: { 'Content-Type': 'x', 'X-Bad': 'a\r\nb', 'bad name': null },
      disabled: 'yes',
      baseURL: 'typo',
    });
    expect(refused.statusCode).toBe(400);
    const error = refused.json().error;
    expect(error.code).toBe('invalid_request');
    expect(error.details.map((d: { path: string }) => d.path).sort()).toEqual(['baseURL', 'baseUrl', 'disabled', 'headers', 'headers.Content-Type', 'headers.X-Bad', 'name'].sort());
    expect(refused.body).not.toContain('pw@');
    for (const body of [[], 'text', null, { headers: [] }, { headers: { 'X-A': 5 } }]) {
      const response = await patch(acme.projectId, created.id, body);
      expect([response.statusCode, response.json().error.code], JSON.stringify(body)).toEqual([400, 'invalid_request']);
    }
    const tooMany = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`X-H${i}`, 'v']));
    const overflow = await patch(acme.projectId, created.id, { headers: tooMany });
    expect(overflow.json().error.details).toEqual([{ path: 'headers', message: 'must leave at most 50 headers' }]);
    expect(await historyOf(acme.projectId, created.id)).toEqual([]);
  });

  it('answers 404 for unknown, non-uuid or foreign ids, 400 for a NUL or overlong id', async () => {
    const foreign = await createDestinationVia(app, other.projectId, { baseUrl: target.origin });
    for (const id of [foreign.id, 'nope', '6f1f0a52-52c8-4c3a-9d0e-1c1a1b1c1d1e']) {
      expect((await patch(acme.projectId, id, { name: 'x' })).json().error.code).toBe('not_found');
    }
    expect((await patch(acme.projectId, 'a'.repeat(513), { name: 'x' })).json().error.code).toBe('invalid_request');
    expect((await patch(acme.projectId, 'a%00b', { name: 'x' })).statusCode).toBe(400);
    expect((await historyOf(other.projectId, foreign.id))).toEqual([]);
  });

  it('needs every stored header named when the stored values cannot be decrypted', async () => {
    const created = await createDestinationVia(app, acme.projectId, { baseUrl: target.origin, headers: { 'X-One': 'one-value-1234', 'X-Two': 'two-value-1234' } });
    await db.pool.query(`UPDATE replay_destinations SET headers_encrypted = 'v1.unknown.AAAA' WHERE id = $1`, [created.id]);
    const partial = await patch(acme.projectId, created.id, { headers: { 'X-One': 'fresh-value-1' } });
    expect([partial.statusCode, partial.json().error.details[0].path]).toEqual([400, 'headers']);
    const whole = await patch(acme.projectId, created.id, { headers: { 'X-One': 'fresh-value-1', 'X-Two': null } });
    expect(whole.json().data.headerNames).toEqual(['X-One']);
    // The name alone never needs the values.
    expect((await patch(acme.projectId, created.id, { name: 'renamed' })).statusCode).toBe(200);
  });
});

describe('a server on a key a rotation replaced', () => {
  it('refuses a headers edit with 503 key_superseded, and still takes name and switch edits', async () => {
    const created = await createDestinationVia(app, acme.projectId, { baseUrl: target.origin, headers: { 'X-Key': 'kept-value-12345' } });
    await db.pool.query('INSERT INTO key_successions (key_id, superseded_by) VALUES ($1, $2)', [keyring.currentKeyId, keyring.currentKeyId === 'abcdef01' ? 'abcdef02' : 'abcdef01']);
    try {
      const refused = await patch(acme.projectId, created.id, { headers: { 'X-Key': 'new-value-12345' } });
      expect([refused.statusCode, refused.json().error.code]).toEqual([503, 'key_superseded']);
      expect((await patch(acme.projectId, created.id, { name: 'still editable', disabled: true })).statusCode).toBe(200);
    } finally {
      await db.pool.query('DELETE FROM key_successions WHERE key_id = $1', [keyring.currentKeyId]);
    }
    expect((await historyOf(acme.projectId, created.id)).map((row) => row.action).sort()).toEqual(['replay_destination.disabled', 'replay_destination.updated']);
  });
});

describe('POST /v1/replay-destinations/url-check', () => {
  it('answers the problems a create would refuse the URL for, and whether its host is allowed', async () => {
    expect((await urlCheck(acme.projectId, 'HTTP://127.0.0.1:80/api/')).json().data).toEqual({ baseUrl: 'http://127.0.0.1/api', problems: [], hostAllowed: true });
    expect((await urlCheck(acme.projectId, 'https://staging.example.com')).json().data).toEqual({ baseUrl: 'https://staging.example.com', problems: [], hostAllowed: false });
    for (const [url, message] of [
      ['http://user@127.0.0.1', 'must not hold user information'],
      ['http://127.0.0.1/a/%2e%2e/b', 'must not hold . or .. path segments'],
      ['ftp://127.0.0.1', 'must be an absolute http:// or https:// URL'],
      ['', 'must not be empty'],
    ] as const) {
      expect((await urlCheck(acme.projectId, url)).json().data).toEqual({ baseUrl: null, problems: [{ path: 'baseUrl', message }], hostAllowed: null });
    }
    const missing = await urlCheck(acme.projectId, 5);
    expect([missing.statusCode, missing.json().error.code, missing.json().error.details[0].path]).toEqual([400, 'invalid_request', 'baseUrl']);
  });
});

describe('roles', () => {
  it('refuses viewers and operators with 403, allows a project admin in their project only', async () => {
    const destination = await createDestinationVia(app, acme.projectId, { baseUrl: target.origin });
    const foreign = await createDestinationVia(app, other.projectId, { baseUrl: target.origin });
    const tokens: Record<string, Record<string, string>> = {};
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      const person = await makePerson(db.pool, { [acme.projectId]: role, ...(role === 'admin' ? { [other.projectId]: 'viewer' as const } : {}) });
      tokens[role] = bearer((await tokenOf(app, await sessionOf(app, person.email))).secret);
    }
    for (const role of ['viewer', 'operator']) {
      const edit = await patch(acme.projectId, destination.id, { name: role }, tokens[role]);
      expect([edit.statusCode, edit.json().error.code]).toEqual([403, 'forbidden']);
      const check = await urlCheck(acme.projectId, target.origin, tokens[role]);
      expect([check.statusCode, check.json().error.code]).toEqual([403, 'forbidden']);
    }
    const allowed = await patch(acme.projectId, destination.id, { name: 'by an admin' }, tokens.admin);
    expect(allowed.statusCode).toBe(200);
    const [row] = await historyOf(acme.projectId, destination.id);
    expect(row!.actor).toMatchObject({ kind: 'user', email: expect.stringMatching(/@example\.com$/) });
    const elsewhere = await patch(other.projectId, foreign.id, { name: 'not mine' }, tokens.admin);
    expect([elsewhere.statusCode, elsewhere.json().error.code]).toEqual([403, 'forbidden']);
    const apiKey = await patch(acme.projectId, destination.id, { name: 'key' }, bearer(acme.apiKey));
    expect([apiKey.statusCode, apiKey.json().error.code]).toEqual([401, 'unauthorized']);
  });
});
