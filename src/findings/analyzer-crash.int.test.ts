import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY } from '../../test/helpers/app.ts';
import { freePort } from '../../test/helpers/free-port.ts';
import { contactJourney, type Variant } from '../forensics/test-journeys.ts';
import { createReadFixture, ingest, type ReadFixture } from '../query/test-fixtures.ts';
import { allFindingRows, drainAll, markAll, pendingCount, quietAnalyzer } from './test-kit.ts';

/**
 * The real server (src/main.ts) killed with SIGKILL in the middle of its analysis, then started
 * again: every journey ends with exactly the findings a full analysis from scratch gives, none
 * missing and none twice.
 */

let fx: ReadFixture;
const children: ChildProcess[] = [];
const JOURNEYS = 600;
const VARIANTS: Variant[] = ['lost', 'kept', 'transit', 'retry', 'missing-publish', 'reordered'];

beforeAll(async () => {
  fx = await createReadFixture();
  const events = Array.from({ length: JOURNEYS }, (_, i) => contactJourney(`jrn-${String(i).padStart(4, '0')}`, VARIANTS[i % VARIANTS.length]!)).flat();
  await ingest(fx, 'production', events);
}, 120_000);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await fx.close();
});

async function startServer(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: new URL('../../', import.meta.url),
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: fx.db.url, ADMIN_TOKEN: TEST_ADMIN_TOKEN, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, HOST: '127.0.0.1', PORT: String(await freePort()), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  children.push(child);
  return child;
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const findingCount = async () => (await fx.db.pool.query<{ n: number }>('SELECT COALESCE(sum(cardinality(kind)), 0)::int AS n FROM journey_findings')).rows[0]!.n;

describe('an analyzer killed mid-run', () => {
  it('leaves every journey with exactly its findings after a restart', async () => {
    expect(await pendingCount(fx.db.pool)).toBe(JOURNEYS);
    const first = await startServer();
    // Killed once some batches have committed and others have not.
    await waitFor(async () => (await findingCount()) > 0, 30_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const left = await pendingCount(fx.db.pool);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(JOURNEYS);

    // The dead session's lock is gone: the restarted server takes over and finishes.
    const second = await startServer();
    await waitFor(async () => (await pendingCount(fx.db.pool)) === 0, 60_000);
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));
    const afterRestart = await allFindingRows(fx.db.pool);

    // The reference: every journey analysed again from scratch.
    await fx.db.pool.query(`DELETE FROM journey_findings`);
    await fx.db.pool.query(`DELETE FROM journey_analysis`);
    await markAll(fx.db.pool);
    const reference = quietAnalyzer(fx.db.pool);
    await drainAll(reference, fx.db.pool);
    await reference.stop();
    expect(afterRestart).toEqual(await allFindingRows(fx.db.pool));
    expect(afterRestart.length).toBeGreaterThan(JOURNEYS / 2);
  }, 120_000);
});
