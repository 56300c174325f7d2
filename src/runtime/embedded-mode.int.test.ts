import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { createPool } from '../db/pool.ts';
import { freePort } from '../../test/helpers/free-port.ts';
import { EMBEDDED_APP_ROLE, openDatabase } from './database.ts';
import { resolveSecrets } from './secrets.ts';

/**
 * Embedded mode on its own cluster: the port and data directory come from EMBEDDED_PG_PORT and
 * JTRACE_DATA_DIR, a port held by another server is refused with the way out, the application
 * connects as a non-superuser role that owns the database (a database of an earlier version,
 * owned by the superuser, is handed over), and the secrets file is out of the database's reach.
 */

const dirs: string[] = [];
let cluster: EmbeddedDatabase | null = null;

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'jtrace-embedded-'));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  await cluster?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('embedded mode', () => {
  it('runs on EMBEDDED_PG_PORT in JTRACE_DATA_DIR as a non-superuser that cannot read the secrets', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const config = loadConfig({ JTRACE_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) });
    const secrets = resolveSecrets(config, config.dataDir);

    // A database left by an earlier version: created and migrated by the superuser.
    cluster = await startEmbeddedPostgres({ dataDir, port, fsync: false });
    const superuser = new pg.Client(cluster.url);
    await superuser.connect();
    await superuser.query('CREATE DATABASE jtrace');
    const legacy = createPool({ connectionString: cluster.url.replace(/\/postgres$/, '/jtrace'), max: 1, statementTimeoutMs: 0 });
    await migrate(legacy);
    await legacy.end();

    const database = await openDatabase(config, { applicationName: 'embedded-test', poolMax: 2 });
    try {
      expect(database.embedded?.startedHere).toBe(false);
      const me = await database.pool.query<{ user: string; super: boolean }>(
        'SELECT current_user AS user, rolsuper AS super FROM pg_roles WHERE rolname = current_user',
      );
      expect(me.rows).toEqual([{ user: EMBEDDED_APP_ROLE, super: false }]);
      // The handed-over schema is the role's: migrations and writes work as it.
      expect(await migrate(database.pool)).toEqual([]);
      const owners = await database.pool.query<{ owner: string }>(
        "SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND relkind IN ('r', 'p')",
      );
      expect(owners.rows).toEqual([{ owner: EMBEDDED_APP_ROLE }]);
      await database.pool.query("INSERT INTO projects (id, slug, name) VALUES (gen_random_uuid(), 'embedded', 'Embedded')");

      const secretsFile = secrets.generatedFile!;
      await expect(database.pool.query('SELECT pg_read_file($1)', [secretsFile])).rejects.toMatchObject({ code: '42501' });
      if (process.getuid?.() === 0) {
        // As root the cluster runs as the postgres OS user, which cannot open the file at all.
        expect(statSync(secretsFile).uid).toBe(0);
        await expect(superuser.query('SELECT pg_read_file($1)', [secretsFile])).rejects.toThrow();
      }
    } finally {
      await superuser.end();
      await database.close();
    }
    // initdb and two migration runs: slow on a loaded machine.
  }, 180_000);

  it('says which variable to set when the port is held by another server', async () => {
    const port = cluster ? Number(new URL(cluster.url).port) : await freePort();
    const config = loadConfig({ JTRACE_DATA_DIR: tempDir(), EMBEDDED_PG_PORT: String(port) });
    await expect(openDatabase(config, { applicationName: 'embedded-test' })).rejects.toThrow(/taken by another server.*EMBEDDED_PG_PORT.*JTRACE_DATA_DIR/);
  });

  it('says which port its own running server is on when asked for another', async () => {
    const dataDir = dirs[0]!;
    const config = loadConfig({ JTRACE_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) });
    await expect(openDatabase(config, { applicationName: 'embedded-test' })).rejects.toThrow(/already running on port \d+; set EMBEDDED_PG_PORT=\d+/);
  });
});
