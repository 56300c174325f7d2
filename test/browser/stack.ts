// A database outside vitest, for the screenshot script and the interface benchmark: an embedded
// PostgreSQL in a temporary folder (or TEST_DATABASE_URL), migrated, removed at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import type { BrowserContext, Page } from 'playwright-core';
import { TEST_ADMIN_TOKEN } from '../helpers/app.ts';
import { freePort } from '../helpers/free-port.ts';

export interface Stack {
  pool: Pool;
  stop(): Promise<void>;
}

export async function startDatabase(): Promise<Stack> {
  const given = process.env.TEST_DATABASE_URL?.trim();
  const dataDir = given ? null : mkdtempSync(path.join(tmpdir(), 'jtrace-ui-'));
  const embedded = dataDir ? await startEmbeddedPostgres({ dataDir, port: await freePort(), fsync: false }) : null;
  const pool = createPool({ connectionString: given || embedded!.url, max: 10, statementTimeoutMs: 15_000 });
  await migrate(pool);
  return {
    pool,
    async stop() {
      await pool.end();
      await embedded?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A tab signed in through the sign-in page, then at `path`. */
export async function signedInPage(context: BrowserContext, baseUrl: string, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${baseUrl}/ui/sign-in?next=${encodeURIComponent(path)}`);
  await page.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: /^Signed in as/ }).waitFor();
  return page;
}
