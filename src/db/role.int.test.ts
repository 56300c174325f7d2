import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY } from '../../test/helpers/app.ts';
import { createApplicationRole, createTestDatabase, type ApplicationRole, type TestDatabase } from '../../test/helpers/database.ts';
import { freePort } from '../../test/helpers/free-port.ts';
import { connectsAsSuperuser } from './role.ts';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const SUPERUSER_WARNING = 'DATABASE_URL connects as a superuser';

let db: TestDatabase;
let appRole: ApplicationRole;

beforeAll(async () => {
  db = await createTestDatabase();
  appRole = await createApplicationRole(db);
});
afterAll(async () => {
  await appRole.drop();
  await db.drop();
});

/** Starts the real entry point, waits until it listens (and its start-up checks ran), stops it. */
function startAndStop(databaseUrl: string): Promise<string> {
  return freePort().then(
    (port) =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
          env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, ADMIN_TOKEN: TEST_ADMIN_TOKEN, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, PORT: String(port), HOST: '127.0.0.1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        const collect = (chunk: Buffer) => {
          output += chunk.toString();
          // The role check runs beside traffic; the unreadable-data check logs after it.
          if (output.includes('jtrace is listening') && !child.killed) setTimeout(() => child.kill('SIGTERM'), 1_500);
        };
        child.stdout.on('data', collect);
        child.stderr.on('data', collect);
        child.on('error', reject);
        child.on('exit', () => resolve(output));
      }),
  );
}

describe('the database role', () => {
  it('is seen as a superuser for the cluster owner and not for an application role', async () => {
    expect(await connectsAsSuperuser(db.pool)).toBe(true);
    expect(await connectsAsSuperuser(appRole.pool)).toBe(false);
  });

  it('makes the server warn at start when DATABASE_URL connects as a superuser, naming how to create the application role', async () => {
    const output = await startAndStop(db.url);
    const warning = output.split('\n').find((line) => line.includes(SUPERUSER_WARNING));
    expect(warning).toBeDefined();
    const entry = JSON.parse(warning!) as { level: number; msg: string };
    expect(entry.level).toBe(40);
    expect(entry.msg).toContain('CREATE ROLE jtrace_app LOGIN');
    expect(entry.msg).toContain('docs/operations.md');
    expect(output).not.toContain(db.url);
  });

  it('starts without the warning as an application role', async () => {
    const output = await startAndStop(appRole.url);
    expect(output).toContain('jtrace is listening');
    expect(output).not.toContain(SUPERUSER_WARNING);
  });
});
