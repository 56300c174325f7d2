import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKeyByPrefix } from '../auth/api-key-service.ts';
import type { CliContext } from '../cli-context/context.ts';
import { runCli } from '../cli/run.ts';
import { encryptField } from '../crypto/field-encryption.ts';
import { createKeyring, type Keyring } from '../crypto/keyring.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, buildTestApp, seedProject, testConfig, type SeededProject } from '../../test/helpers/app.ts';
import { createApplicationRole, createEmptyDatabase, createTestDatabase, type ApplicationRole, type TestDatabase } from '../../test/helpers/database.ts';
import { freePort } from '../../test/helpers/free-port.ts';

/** `jtrace doctor`: a healthy installation exits 0; each failing check makes it exit 1 and names the fix. */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
/** The healthy installation connects as an application role, never as a superuser. */
let appRole: ApplicationRole;
let app: FastifyInstance;
let apiUrl: string;
let project: SeededProject;
const cleanups: Array<() => Promise<void>> = [];


const healthyEnv = (): Record<string, string> => ({ DATABASE_URL: appRole.url, ADMIN_TOKEN: TEST_ADMIN_TOKEN, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY });

interface DoctorRun {
  status: number;
  lines: string[];
  line(check: string): string;
}

async function doctor(argv: string[], options: { env?: Record<string, string>; pool?: Pool; keyring?: Keyring } = {}): Promise<DoctorRun> {
  const lines: string[] = [];
  const env = options.env ?? healthyEnv();
  const ctx: CliContext = {
    env,
    io: { out: (line) => lines.push(line), err: (line) => lines.push(line) },
    withServices: (fn) => fn({ config: testConfig({ port: Number(new URL(apiUrl).port) }), pool: options.pool ?? appRole.pool, keyring: options.keyring ?? keyring }),
  };
  const status = await runCli(['doctor', ...argv], ctx);
  return { status, lines, line: (check) => lines.find((line) => line.split(' ')[1] === check) ?? `(no ${check} line)` };
}

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app } = await buildTestApp(db.pool, { keyring }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  apiUrl = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
  project = await seedProject(db.pool, keyring, 'acme');
  appRole = await createApplicationRole(db);
});
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});
afterAll(async () => {
  await app.close();
  await appRole.drop();
  await db.drop();
});

describe('jtrace doctor', () => {
  it('passes on a healthy installation, with one line per check and no secret in the output', async () => {
    const run = await doctor(['--api-url', apiUrl, '--api-key', project.apiKey]);
    expect(run.lines.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
      'ok secrets', 'ok database', 'ok role', 'ok migrations', 'ok keys', 'ok api', 'ok api-key',
    ]);
    expect(run.status).toBe(0);
    expect(run.line('api-key')).toContain(`${project.keyPrefix}… authenticates`);
    const text = run.lines.join('\n');
    for (const secret of [project.apiKey, TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, db.url, appRole.url]) expect(text).not.toContain(secret);
  });

  it('takes the key from SERVICE_API_KEY, never from API_KEY, and finds the API at HOST:PORT without --api-url', async () => {
    const fromService = await doctor([], { env: { ...healthyEnv(), SERVICE_API_KEY: project.apiKey } });
    expect(fromService.status).toBe(0);
    expect(fromService.line('api')).toMatch(/^ok api http:\/\/127\.0\.0\.1:\d+ is ready \(version 0\.0\.0, source package\)$/);
    expect(fromService.line('api-key')).toMatch(/^ok api-key/);
    const fromApiKey = await doctor([], { env: { ...healthyEnv(), API_KEY: project.apiKey } });
    expect(fromApiKey.line('api-key')).toMatch(/^skip api-key no key given/);
    expect(fromApiKey.status).toBe(0);
  });

  it('fails when the database is unreachable and skips what depends on it', async () => {
    const pool = createPool({ connectionString: 'postgres://jtrace:secret-password@127.0.0.1:1/none', max: 1, statementTimeoutMs: 0 });
    cleanups.push(() => pool.end());
    const run = await doctor(['--api-url', apiUrl], { pool });
    expect(run.status).toBe(1);
    expect(run.line('database')).toMatch(/^fail database unreachable \(ECONNREFUSED\); fix: check DATABASE_URL/);
    expect(run.line('migrations')).toMatch(/^skip migrations/);
    expect(run.line('keys')).toMatch(/^skip keys/);
    expect(run.lines.join('\n')).not.toContain('secret-password');
  });

  it('fails the role check when DATABASE_URL connects as a superuser, saying how to create the application role', async () => {
    const run = await doctor(['--api-url', apiUrl, '--api-key', project.apiKey], { pool: db.pool, env: { ...healthyEnv(), DATABASE_URL: db.url } });
    expect(run.status).toBe(1);
    expect(run.line('role')).toMatch(/^fail role DATABASE_URL connects as a superuser; fix: connect DATABASE_URL as an application role without superuser rights: CREATE ROLE jtrace_app LOGIN .*NOSUPERUSER.*docs\/operations\.md/);
    for (const check of ['secrets', 'database', 'migrations', 'keys', 'api', 'api-key']) expect(run.line(check)).toMatch(/^ok /);
    expect(run.lines.join('\n')).not.toContain(db.url);
  });

  it('fails when migrations are pending', async () => {
    const empty = await createEmptyDatabase();
    cleanups.push(() => empty.drop());
    const run = await doctor(['--api-url', apiUrl], { pool: empty.pool });
    expect(run.status).toBe(1);
    expect(run.line('migrations')).toMatch(/^fail migrations \d+ pending \(database at 0, this build needs \d+\).*; fix: run jtrace migrate$/);
    expect(run.line('keys')).toMatch(/^skip keys the schema is not migrated yet/);
  });

  it.each([
    ['a short ADMIN_TOKEN', { ADMIN_TOKEN: 'too-short' }, /^fail secrets ADMIN_TOKEN: must be at least 32 characters.*; fix: set ADMIN_TOKEN/],
    ['an ADMIN_TOKEN of 32 identical characters', { ADMIN_TOKEN: 'x'.repeat(32) }, /^fail secrets ADMIN_TOKEN: has too little entropy.*; fix: set ADMIN_TOKEN .*without a repeated pattern/],
    ['an ENCRYPTION_KEY of a repeated 16-character pattern', { ENCRYPTION_KEY: '6b7d1d7f7a15ed26'.repeat(4) }, /^fail secrets ENCRYPTION_KEY: has too little entropy: the same 10 characters occur twice/],
    ['a missing ADMIN_TOKEN with DATABASE_URL', { ADMIN_TOKEN: '' }, /^fail secrets ADMIN_TOKEN: is required with DATABASE_URL.*; fix: set ADMIN_TOKEN/],
    ['a missing ENCRYPTION_KEY with DATABASE_URL', { ENCRYPTION_KEY: '' }, /^fail secrets ENCRYPTION_KEY: is required with DATABASE_URL.*; fix: set ENCRYPTION_KEY/],
    ['an unreadable ADMIN_TOKEN_FILE', { ADMIN_TOKEN: '', ADMIN_TOKEN_FILE: '/nonexistent/token' }, /^fail secrets ADMIN_TOKEN_FILE: the file cannot be read/],
  ])('fails on %s', async (_name, overrides, expected) => {
    const run = await doctor(['--api-url', apiUrl], { env: { ...healthyEnv(), ...overrides } });
    expect(run.status).toBe(1);
    expect(run.line('secrets')).toMatch(expected);
    expect(run.lines.join('\n')).not.toContain('too-short');
  });

  it('warns, without failing, about generated secrets in embedded mode', async () => {
    const run = await doctor(['--api-url', apiUrl], { env: {} });
    expect(run.line('secrets')).toMatch(/^warn secrets embedded mode uses generated ADMIN_TOKEN and ENCRYPTION_KEY/);
    expect(run.status).toBe(0);
  });

  it('fails when stored data is under a key that is not configured, and warns while data is under the previous key', async () => {
    const other = await createTestDatabase();
    cleanups.push(() => other.drop());
    const lost = createKeyring({ current: 'a-key-this-installation-no-longer-has-0123456789' });
    const seeded = await seedProject(other.pool, lost, 'lost');
    await other.pool.query(
      `INSERT INTO replay_destinations (project_id, id, name, base_url, environment_type, headers_encrypted)
       VALUES ($1, gen_random_uuid(), 'd', 'http://localhost:9', 'test', $2)`,
      [seeded.projectId, encryptField(lost, '{}')],
    );
    const unreadable = await doctor(['--api-url', apiUrl], { pool: other.pool });
    expect(unreadable.status).toBe(1);
    expect(unreadable.line('keys')).toMatch(/^fail keys values under a key that is not configured: replay_destinations 1; fix: set ENCRYPTION_KEY_PREVIOUS/);

    const rotating = createKeyring({ current: TEST_ENCRYPTION_KEY, previous: 'a-key-this-installation-no-longer-has-0123456789' });
    const otherRole = await createApplicationRole(other);
    cleanups.push(() => otherRole.drop());
    const previous = await doctor(['--api-url', apiUrl], { pool: otherRole.pool, keyring: rotating });
    expect(previous.line('keys')).toMatch(/^warn keys still under the previous key: destination headers 1, API keys 1; fix: run jtrace rotate:reencrypt/);
    expect(previous.status).toBe(0);
  });

  it('fails when the API is unreachable and then skips the key check', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await doctor(['--api-url', closed, '--api-key', project.apiKey]);
    expect(run.status).toBe(1);
    expect(run.line('api')).toMatch(/^fail api http:\/\/127\.0\.0\.1:\d+\/ready is unreachable \(ECONNREFUSED\); fix: start the service/);
    expect(run.line('api-key')).toMatch(/^skip api-key the API is not ready/);
  });

  it('fails when the API is not ready because migrations are pending', async () => {
    const empty = await createEmptyDatabase();
    const { app: pending } = await buildTestApp(empty.pool, { keyring });
    await pending.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(async () => {
      await pending.close();
      await empty.drop();
    });
    const run = await doctor(['--api-url', `http://127.0.0.1:${(pending.server.address() as net.AddressInfo).port}`]);
    expect(run.line('api')).toMatch(/is not ready: migrations_pending .*; fix: run jtrace migrate$/);
    expect(run.status).toBe(1);
  });

  it('fails when the API key is refused (401) or is not an API key at all', async () => {
    const revoked = await seedProject(db.pool, keyring, 'revoked');
    await revokeApiKeyByPrefix(db.pool, revoked.keyPrefix);
    const run = await doctor(['--api-url', apiUrl, '--api-key', revoked.apiKey]);
    expect(run.status).toBe(1);
    expect(run.line('api-key')).toMatch(new RegExp(`^fail api-key ${revoked.keyPrefix}… is refused \\(HTTP 401 unauthorized\\); fix: `));
    expect(run.lines.join('\n')).not.toContain(revoked.apiKey);

    const notAKey = await doctor(['--api-url', apiUrl, '--api-key', TEST_ADMIN_TOKEN]);
    expect(notAKey.status).toBe(1);
    expect(notAKey.line('api-key')).toMatch(/^fail api-key the value given is not an API key/);
    expect(notAKey.lines.join('\n')).not.toContain(TEST_ADMIN_TOKEN);
  });

  it('refuses a bad --api-url and extra arguments as usage errors', async () => {
    expect((await doctor(['--api-url', 'ftp://example.test'])).status).toBe(2);
    expect((await doctor(['--api-url', 'not a url'])).status).toBe(2);
    expect((await doctor(['extra'])).status).toBe(2);
  });
});
