// The user:* commands against the real database, and their effect on the HTTP side.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditActors } from '../audit/audit-log.ts';
import { buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { keyring } from '../web/test-kit.ts';
import { PASSWORD, SAME_ORIGIN, expectCode, sessionOf } from './test-kit.ts';

let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;
const cli = (argv: string[], stdin?: string) => runTestCli(argv, { pool: db.pool, keyring }, {}, stdin);

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  project = await seedProject(db.pool, keyring, 'cli-team');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

describe('user commands', () => {
  it('create an owner with a password from standard input, grant, list, revoke, disable and enable', async () => {
    const created = await cli(['user:create', 'Owner@Example.com', '--name', 'First Owner', '--owner', '--password-stdin', '--json'], `${PASSWORD}\n`);
    expect(created.code, created.err.join('\n')).toBe(0);
    expect(JSON.parse(created.out[0]!)).toMatchObject({ email: 'Owner@Example.com', owner: true, link: null });
    const cookie = await sessionOf(app, 'owner@example.com');
    expect((await app.inject({ method: 'GET', url: '/ui/api/v1/users', headers: { cookie } })).statusCode).toBe(200);

    expect((await cli(['user:create', 'viewer@example.com'])).out[2]).toMatch(/^http:\/\/127\.0\.0\.1:8080\/ui\/set-password#token=[A-Za-z0-9_-]{43}$/);
    expect((await cli(['user:grant', 'viewer@example.com', 'cli-team', 'viewer'])).code).toBe(0);
    expect((await cli(['user:grant', 'viewer@example.com', 'cli-team', 'boss'])).code).toBe(2);
    expect((await cli(['user:grant', 'nobody@example.com', 'cli-team', 'viewer'])).code).toBe(1);
    const listed = JSON.parse((await cli(['user:list', '--json'])).out[0]!);
    expect(listed.find((u: { email: string }) => u.email === 'viewer@example.com').roles).toEqual([{ project: 'cli-team', role: 'viewer' }]);
    expect((await cli(['user:revoke', 'viewer@example.com', 'cli-team'])).code).toBe(0);
    expect((await cli(['user:revoke', 'viewer@example.com', 'cli-team'])).code).toBe(1);

    expect((await cli(['user:disable', 'owner@example.com'])).code).toBe(0);
    expectCode(await app.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie } }), 401, 'unauthorized');
    expect((await cli(['user:enable', 'OWNER@example.com'])).code).toBe(0);
    expect((await cli(['user:create', 'owner@EXAMPLE.com'])).code).toBe(1);
    const weak = await cli(['user:create', 'weak@example.com', '--password-stdin'], 'short\n');
    expect(weak.code).toBe(1);
    expect(weak.err.join('\n')).toContain('at least 12');

    const actors = await listAuditActors(db.pool, project.projectId);
    expect(actors.filter((a) => a.action.startsWith('member.')).map((a) => [a.action, a.kind])).toEqual([
      ['member.granted', 'cli'],
      ['member.revoked', 'cli'],
    ]);
    const trail = await db.pool.query<{ action: string; actor_kind: string }>('SELECT action, actor_kind FROM account_audit_log ORDER BY id');
    expect(trail.rows.map((r) => r.action)).toEqual(expect.arrayContaining(['user.created', 'user.disabled', 'user.enabled', 'session.signed_in']));
  });

  it('user:reset ends the sessions and prints a link that sets a new password once', async () => {
    await cli(['user:create', 'reset@example.com', '--password-stdin'], PASSWORD);
    const cookie = await sessionOf(app, 'reset@example.com');
    const reset = await cli(['user:reset', 'reset@example.com', '--json']);
    expect(reset.code).toBe(0);
    const token = (JSON.parse(reset.out[0]!).link as string).split('#token=')[1]!;
    expectCode(await app.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie } }), 401, 'unauthorized');
    const set = await app.inject({ method: 'POST', url: '/ui/api/password-links', headers: SAME_ORIGIN, payload: { token, password: 'a brand new passphrase' } });
    expect(set.statusCode).toBe(204);
    const signIn = await app.inject({ method: 'POST', url: '/ui/api/session/password', headers: SAME_ORIGIN, payload: { email: 'reset@example.com', password: 'a brand new passphrase' } });
    expect(signIn.statusCode).toBe(204);
    expect((await cli(['user:reset', 'ghost@example.com'])).code).toBe(1);
  });

  it('print the link whole on the address people use: PUBLIC_URL, else the embedded server, else the path', async () => {
    await cli(['user:create', 'links@example.com', '--password-stdin'], PASSWORD);
    const reset = (config: Parameters<typeof runTestCli>[1]['config'], json: boolean) =>
      runTestCli(['user:reset', 'links@example.com', ...(json ? ['--json'] : [])], { pool: db.pool, keyring, ...(config ? { config } : {}) });
    const published = await reset({ publicOrigin: 'https://jtrace.example.com', databaseUrl: 'postgres://db/jtrace' }, true);
    expect(JSON.parse(published.out[0]!).url).toMatch(/^https:\/\/jtrace\.example\.com\/ui\/set-password#token=/);
    const embedded = await reset({ publicOrigin: null, databaseUrl: null, host: '127.0.0.1', port: 8123 }, false);
    expect(embedded.out[1]).toMatch(/^http:\/\/127\.0\.0\.1:8123\/ui\/set-password#token=/);
    const unknown = await reset({ publicOrigin: null, databaseUrl: 'postgres://db/jtrace' }, false);
    expect(unknown.out[0]).toContain('set PUBLIC_URL');
    expect(unknown.out[1]).toMatch(/^\/ui\/set-password#token=/);
    expect(JSON.parse((await reset({ publicOrigin: null, databaseUrl: 'postgres://db/jtrace' }, true)).out[0]!).url).toBeNull();
  });
});
