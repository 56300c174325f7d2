import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ACTOR } from '../audit/audit-log.ts';
import { contactJourney } from '../forensics/test-journeys.ts';
import type { Analyzer } from '../findings/analyzer.ts';
import { drainAll, quietAnalyzer } from '../findings/test-kit.ts';
import { createReadFixture, ingest, type ReadFixture } from '../query/test-fixtures.ts';
import { setProblemStatus, type StatusChange } from './problem-status.ts';
import { selectProblems, type ProblemRow } from './problems-sql.ts';

let fx: ReadFixture;
let analyzer: Analyzer;
// The API's clock: ingestion stamps received_at with it, and a status change its time.
let clock = Date.parse('2026-03-01T12:00:00.000Z');
const tick = (ms = 60_000) => (clock += ms);

beforeAll(async () => {
  fx = await createReadFixture(() => clock);
  analyzer = quietAnalyzer(fx.db.pool);
});
afterEach(async () => {
  await fx.db.pool.query('DELETE FROM journeys');
  await fx.db.pool.query('DELETE FROM problems');
  await fx.db.pool.query('DELETE FROM project_releases');
});
afterAll(async () => {
  await analyzer.stop();
  await fx.close();
});

/** A journey that loses the phone inside normalize-contact, its events from `release`, analysed. */
async function lossIn(journeyId: string, release: string | null, analyse = true): Promise<void> {
  const events = contactJourney(journeyId, 'lost').map((event) => (release === null ? event : { ...event, deployment: { version: release } }));
  await ingest(fx, 'production', events);
  if (analyse) await drainAll(analyzer, fx.db.pool);
}

const ALL = ['open', 'regressed', 'resolved', 'ignored', 'expected'] as const;

/** The problem "lost customer.phone at normalize-contact", as it reads at the clock. */
async function phoneLoss(): Promise<ProblemRow> {
  const rows = await selectProblems(fx.db.pool, fx.projectId, { statuses: ALL, kind: 'lost', path: 'customer.phone', service: 'contacts', environment: null, release: null, since: null },
    { sort: 'journeys', after: null, limit: 10 }, new Date(clock));
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

async function set(change: StatusChange): Promise<void> {
  tick();
  expect(await setProblemStatus(fx.db.pool, fx.projectId, (await phoneLoss()).id, change, new Date(clock), CLI_ACTOR)).toBe(true);
  tick();
}

describe('problem statuses', () => {
  it('a resolved problem that a journey of a newer release has again is regressed, since when and in which release', async () => {
    await lossIn('jrn-a', 'v1');
    expect(await phoneLoss()).toMatchObject({ status: 'open', journeys: 1 });
    await set({ status: 'resolved' });
    expect(await phoneLoss()).toMatchObject({ status: 'resolved', regressed_at: null });
    await lossIn('jrn-b', 'v2');
    const back = await phoneLoss();
    expect(back).toMatchObject({ status: 'regressed', regressed_release: 'v2', journeys: 2, resolved_at: null });
    expect(back.regressed_at).not.toBeNull();
    const audit = await fx.db.pool.query(`SELECT details FROM audit_log WHERE action = 'problem.status_changed'`);
    expect(audit.rows.map((r) => r.details)).toEqual([{ problemId: back.id, status: 'resolved' }]);
  });

  it('never reopens for a journey whose events were all stored before the resolution, analysed after it', async () => {
    await lossIn('jrn-first', 'v1');
    // Stored, not yet analysed, when the problem is resolved.
    await lossIn('jrn-late', 'v1', false);
    await set({ status: 'resolved' });
    await drainAll(analyzer, fx.db.pool);
    expect(await phoneLoss()).toMatchObject({ status: 'resolved', journeys: 2 });
    // One event received after the resolution is what reopens it.
    await ingest(fx, 'production', [{ ...contactJourney('jrn-late', 'lost')[5]!, id: 'jrn-late-again', deployment: { version: 'v1' } }]);
    await drainAll(analyzer, fx.db.pool);
    expect(await phoneLoss()).toMatchObject({ status: 'resolved' });
    await lossIn('jrn-after', 'v1');
    expect(await phoneLoss()).toMatchObject({ status: 'regressed', regressed_release: 'v1' });
  });

  it('resolved in the next release stays resolved for journeys of the releases deployed at the resolution', async () => {
    await lossIn('jrn-v1', 'v1');
    await set({ status: 'resolved', inNextRelease: true });
    await lossIn('jrn-v1-again', 'v1');
    expect(await phoneLoss()).toMatchObject({ status: 'resolved', journeys: 2 });
    await lossIn('jrn-none', null);
    expect(await phoneLoss()).toMatchObject({ status: 'resolved', journeys: 3 });
    await lossIn('jrn-v2', 'v2');
    expect(await phoneLoss()).toMatchObject({ status: 'regressed', regressed_release: 'v2' });
  });

  it('a release deployed before the resolution, without a finding yet, is not the next one', async () => {
    await lossIn('jrn-v1', 'v1');
    // v2 is out (a journey without the loss) when the fix is marked for the next release.
    await ingest(fx, 'production', contactJourney('jrn-kept-v2', 'kept').map((event) => ({ ...event, deployment: { version: 'v2' } })));
    await drainAll(analyzer, fx.db.pool);
    await set({ status: 'resolved', inNextRelease: true });
    await lossIn('jrn-v2', 'v2');
    expect(await phoneLoss()).toMatchObject({ status: 'resolved' });
    await lossIn('jrn-v3', 'v3');
    expect(await phoneLoss()).toMatchObject({ status: 'regressed', regressed_release: 'v3' });
  });

  it('ignored until a date reads open once the date has passed', async () => {
    await lossIn('jrn-a', 'v1');
    await set({ status: 'ignored', until: new Date(clock + 3_600_000).toISOString() });
    expect(await phoneLoss()).toMatchObject({ status: 'ignored' });
    tick(3_600_000);
    expect(await phoneLoss()).toMatchObject({ status: 'open' });
  });

  it('ignored until it affects N more journeys reads open at the Nth', async () => {
    await lossIn('jrn-a', 'v1');
    await set({ status: 'ignored', moreJourneys: 2 });
    await lossIn('jrn-b', 'v1');
    expect(await phoneLoss()).toMatchObject({ status: 'ignored', journeys_since_status: 1 });
    await lossIn('jrn-c', 'v1');
    expect(await phoneLoss()).toMatchObject({ status: 'open', journeys: 3 });
  });

  it('ignored for good stays ignored; expected stays expected; open clears a regression', async () => {
    await lossIn('jrn-a', 'v1');
    await set({ status: 'ignored' });
    await lossIn('jrn-b', 'v1');
    tick(86_400_000 * 30);
    expect(await phoneLoss()).toMatchObject({ status: 'ignored' });
    await set({ status: 'expected' });
    await lossIn('jrn-c', 'v2');
    expect(await phoneLoss()).toMatchObject({ status: 'expected', journeys: 3 });
    await set({ status: 'resolved' });
    await lossIn('jrn-d', 'v3');
    expect(await phoneLoss()).toMatchObject({ status: 'regressed' });
    await set({ status: 'open' });
    expect(await phoneLoss()).toMatchObject({ status: 'open', regressed_at: null, regressed_release: null, resolved_at: null });
  });
});
