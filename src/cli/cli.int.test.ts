import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { listAudit } from '../audit/audit-log.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';

let db: TestDatabase;
let app: FastifyInstance;
const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const cli = (...argv: string[]) => runTestCli(argv, { pool: db.pool, keyring, config: { defaultRetentionDays: 12 } });

function envelope(id: string, environment = 'production') {
  return {
    protocolVersion: '0.1',
    event: {
      id,
      journeyId: `jrn_${id}`,
      environment,
      service: 'cli-test',
      entity: { type: 'customer', id: 'c-1' },
      operation: 'received',
      name: 'receive',
      timestamp: '2026-08-06T18:31:02.000Z',
    },
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

describe('project commands', () => {
  it('creates and lists a project', async () => {
    const created = await cli('project:create', 'acme', 'Acme', 'Corp');
    expect(created.code).toBe(0);
    const listed = await cli('project:list');
    expect(listed.code).toBe(0);
    expect(listed.out.join('\n')).toMatch(/^acme\t[0-9a-f-]{36}\tAcme Corp\t/m);
  });

  it('refuses a duplicate slug with exit 1 and a bad slug with exit 2', async () => {
    expect((await cli('project:create', 'acme', 'Again')).code).toBe(1);
    expect((await cli('project:create', 'Bad_Slug', 'X')).code).toBe(2);
  });

  it('never runs a command for --help', async () => {
    const result = await cli('project:create', 'helped', 'Name', '--help');
    expect(result.code).toBe(0);
    expect(result.out.join('\n')).toContain('usage: jtrace project:create');
    expect((await cli('project:list')).out.join('\n')).not.toContain('helped');
  });

  it('refuses extra arguments, unknown options, non-ASCII dashes and unknown commands with exit 2', async () => {
    expect((await cli('project:list', 'extra')).code).toBe(2);
    expect((await cli('project:create', 'x', '--force')).code).toBe(2);
    expect((await cli('project:create', 'dash', '\u2014name')).code).toBe(2);
    expect((await cli('project:destroy')).code).toBe(2);
  });

  it('takes a dash-leading value after --', async () => {
    const result = await cli('project:create', 'dashed', '--', '-Dashed', 'Name');
    expect(result.code).toBe(0);
    expect((await cli('project:list')).out.join('\n')).toContain('-Dashed Name');
  });
});

describe('key commands', () => {
  it('creates a key with --json, creates the environment with the default retention, and writes api_key.created', async () => {
    const result = await cli('key:create', 'acme', 'production', 'worker', 'one', '--json');
    expect(result.code).toBe(0);
    expect(result.out).toHaveLength(1);
    const created = JSON.parse(result.out[0]!);
    expect(Object.keys(created).sort()).toEqual(['apiKey', 'environmentName', 'keyPrefix', 'projectSlug']);
    expect(created.apiKey).toMatch(/^jtk_[A-Za-z0-9_-]{32}$/);
    expect(created.apiKey.startsWith(created.keyPrefix)).toBe(true);
    const shown = await cli('environment:show', 'acme', 'production');
    expect(shown.out).toContain('retention days: 12');
    expect(shown.out).toContain('capture mode: redacted-payload');

    const projectId = (await db.pool.query<{ id: string }>("SELECT id FROM projects WHERE slug = 'acme'")).rows[0]!.id;
    const audit = await listAudit(db.pool, projectId);
    const row = audit.find((entry) => entry.action === 'api_key.created');
    expect(row?.details).toEqual({ keyPrefix: created.keyPrefix });
    expect(JSON.stringify(audit)).not.toContain(created.apiKey);
  });

  it('the key ingests, and after key:revoke it is refused with 401 from then on', async () => {
    const created = JSON.parse((await cli('key:create', 'acme', 'production', 'revocable', '--json')).out[0]!);
    const send = () =>
      app.inject({ method: 'POST', url: '/v1/events/batch', headers: bearer(created.apiKey), payload: { events: [envelope(`evt_${Date.now()}_${Math.random()}`)] } });
    expect((await send()).statusCode).toBe(202);
    const revoked = await cli('key:revoke', created.keyPrefix);
    expect(revoked.code).toBe(0);
    expect((await send()).statusCode).toBe(401);
    expect((await send()).json().error.code).toBe('unauthorized');
    expect((await cli('key:revoke', created.keyPrefix)).code).toBe(1);
    const list = await cli('key:list');
    expect(list.out.join('\n')).toMatch(new RegExp(`${created.keyPrefix}\\tacme/production\\trevocable\\trevoked `));
    expect(list.out.join('\n')).not.toContain(created.apiKey);

    const projectId = (await db.pool.query<{ id: string }>("SELECT id FROM projects WHERE slug = 'acme'")).rows[0]!.id;
    const audit = await listAudit(db.pool, projectId);
    expect(audit.filter((entry) => entry.action === 'api_key.revoked').map((e) => e.details)).toEqual([{ keyPrefix: created.keyPrefix }]);
  });

  it('exits 1 for an unknown project', async () => {
    expect((await cli('key:create', 'nope', 'production', 'x')).code).toBe(1);
  });
});

describe('environment commands', () => {
  it('replaces only the named settings and refuses malformed rules', async () => {
    await cli('key:create', 'acme', 'staging', 'w');
    const set = await cli('environment:set', 'acme', 'staging', '--capture-mode', 'allowlisted-fields', '--allow', 'customer.id', '--allow', 'order.total');
    expect(set.code).toBe(0);
    const redacted = await cli('environment:set', 'acme', 'staging', '--redact', 'customer.ssn', '--redact', '**.x-token', '--retention-days', '7');
    expect(redacted.code).toBe(0);
    const shown = (await cli('environment:show', 'acme', 'staging')).out;
    expect(shown).toContain('capture mode: allowlisted-fields');
    expect(shown).toContain('retention days: 7');
    expect(shown).toContain('redaction rules: customer.ssn **.x-token');
    expect(shown).toContain('capture allowlist: customer.id order.total');
    await cli('environment:set', 'acme', 'staging', '--clear-redact', '--clear-allow');
    const cleared = (await cli('environment:show', 'acme', 'staging')).out;
    expect(cleared).toContain('redaction rules: (none)');
    expect(cleared).toContain('capture allowlist: (none)');
    expect((await cli('environment:set', 'acme', 'staging', '--redact', 'a..b')).code).toBe(2);
    expect((await cli('environment:set', 'acme', 'staging', '--capture-mode', 'everything')).code).toBe(2);
    expect((await cli('environment:set', 'acme', 'staging', '--retention-days', '0')).code).toBe(2);
    expect((await cli('environment:set', 'acme', 'nowhere', '--retention-days', '3')).code).toBe(1);
    expect((await cli('environment:show', 'acme', 'nowhere')).code).toBe(1);
  });

  it('applies a capture mode change to later events only', async () => {
    const key = JSON.parse((await cli('key:create', 'acme', 'capture', 'w', '--json')).out[0]!).apiKey as string;
    const withInput = (id: string) => ({ ...envelope(id, 'capture'), event: { ...envelope(id, 'capture').event, input: { a: 1 } } });
    await app.inject({ method: 'POST', url: '/v1/events/batch', headers: bearer(key), payload: { events: [withInput('cap-1')] } });
    await cli('environment:set', 'acme', 'capture', '--capture-mode', 'metadata-only');
    await app.inject({ method: 'POST', url: '/v1/events/batch', headers: bearer(key), payload: { events: [withInput('cap-2')] } });
    const first = await app.inject({ method: 'GET', url: '/v1/events/cap-1', headers: bearer(key) });
    const second = await app.inject({ method: 'GET', url: '/v1/events/cap-2', headers: bearer(key) });
    expect(first.json().data.inputPayload).toEqual({ a: 1 });
    expect(second.json().data.inputPayload).toBeNull();
    expect(second.json().data.hasInput).toBe(false);
  });
});

describe('migration commands', () => {
  it('reports an up-to-date schema and releases a lock', async () => {
    const migrated = await cli('migrate');
    expect(migrated.code).toBe(0);
    expect(migrated.out).toContain('the schema is up to date');
    await db.pool.query('UPDATE schema_migrations_lock SET locked = true');
    expect((await cli('migrate')).code).toBe(1);
    const unlocked = await cli('migrate:unlock');
    expect(unlocked.out).toContain('released the migration lock');
    expect((await cli('migrate')).code).toBe(0);
  });
});

describe('a command naming an unknown project', () => {
  it.each([
    ['alert:list', 'nope'],
    ['alert:mute', 'nope', '00000000-0000-4000-8000-000000000000', '--unmute'],
    ['destination:disable', 'nope', '00000000-0000-4000-8000-000000000000'],
    ['delete:destination', 'nope', '00000000-0000-4000-8000-000000000000'],
    ['environment:set', 'nope', 'production', '--retention-days', '30'],
    ['expectation:show', 'nope'],
  ])('%s says so on stderr and exits 1', async (...argv) => {
    const result = await cli(...argv);
    expect(result.err.join('\n')).toContain('no project with the slug or id nope');
    expect(result.code).toBe(1);
  });
});
