// What `npm run build` makes runs on plain Node, without tsx: tsc with the build's own
// configuration (tsconfig.build.json) into a folder of its own beside dist/, so a developer's
// dist/ is left alone, and the migrations copied beside it as the build copies them. Type
// checking is `npm test`'s first step, so this compile skips it (--noCheck): the emitted
// JavaScript is the same. The compiled CLI migrates an empty database, then the compiled server
// answers /ready, stores an event, reads it back and serves the built interface.
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../src/crypto/keyring.ts';
import { testEnvelope } from '../src/ingest/test-fixtures.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, seedProject, type SeededProject } from './helpers/app.ts';
import { createEmptyDatabase, type TestDatabase } from './helpers/database.ts';
import { startServerProcess, type ServerProcess } from './helpers/server-process.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

// One level below the repository, as dist/ is: the server finds ../web/dist, the package's
// version and node_modules from there exactly as dist/main.js does.
let outDir: string;
let db: TestDatabase;
let project: SeededProject;
let server: ServerProcess | null = null;

/** The child's exit, or a SIGKILL after 15 s. */
function stopped(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

beforeAll(async () => {
  outDir = mkdtempSync(path.join(ROOT, '.build-test-'));
  await run(process.execPath, [TSC, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', outDir], { cwd: ROOT });
  await run(process.execPath, ['scripts/copy-migrations.js', outDir], { cwd: ROOT });
  db = await createEmptyDatabase();
}, 120_000);

afterAll(async () => {
  if (server) await stopped(server.child);
  await db?.drop();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('the compiled build', () => {
  it('is JavaScript whose relative imports name .js files', () => {
    expect(readFileSync(path.join(outDir, 'main.js'), 'utf8')).toMatch(/from ["']\.\/app\.js["']/);
    const emitted = readdirSync(outDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.js'));
    expect(emitted.length).toBeGreaterThan(100);
    const tsImports = emitted.filter((e) => /(from|import)\s*\(?\s*["']\.{1,2}\/[^"']*\.ts["']/.test(readFileSync(path.join(e.parentPath, e.name), 'utf8')));
    expect(tsImports.map((e) => e.name)).toEqual([]);
    expect(readdirSync(path.join(outDir, 'db/migrations')).filter((name) => name.endsWith('.sql')).length)
      .toBe(readdirSync(path.join(ROOT, 'src/db/migrations')).filter((name) => name.endsWith('.sql')).length);
  });

  it('migrates an empty database with the compiled CLI, which reads the migrations beside it', async () => {
    const env = { PATH: process.env.PATH ?? '', DATABASE_URL: db.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, ADMIN_TOKEN: TEST_ADMIN_TOKEN };
    const { stdout } = await run(process.execPath, [path.join(outDir, 'cli/main.js'), 'migrate'], { cwd: ROOT, env });
    expect(stdout).toContain('applied 0001_');
    const applied = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    expect(applied.rows[0]!.n).toBe(readdirSync(path.join(outDir, 'db/migrations')).length);
  });

  it('serves /ready, stores an event and reads it back, and serves the built interface', async () => {
    project = await seedProject(db.pool, createKeyring({ current: TEST_ENCRYPTION_KEY }), 'compiled');
    // Plain node on the compiled entry: a `.ts` import left in the output would not even load.
    server = await startServerProcess({ DATABASE_URL: db.url }, [path.join(outDir, 'main.js')]);
    const ready = await fetch(`${server.baseUrl}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });

    const envelope = testEnvelope();
    const sent = await fetch(`${server.baseUrl}/v1/events`, {
      method: 'POST',
      headers: { ...bearer(project.apiKey), 'content-type': 'application/json' },
      body: JSON.stringify(envelope),
    });
    expect(sent.status).toBe(202);
    const id = (envelope.event as { id: string }).id;
    const read = await fetch(`${server.baseUrl}/v1/events/${encodeURIComponent(id)}`, { headers: bearer(project.apiKey) });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ data: { id, name: 'order received' } });

    // `npm test` builds web/dist before vitest runs; the compiled server finds it from its folder.
    expect(existsSync(path.join(ROOT, 'web/dist/index.html'))).toBe(true);
    const page = await fetch(`${server.baseUrl}/ui/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect(await stopped(server.child)).toBe(0);
    server = null;
  });
});
