import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../db/pool.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { API_KEY, createReadFixture, get, ingest, type ReadFixture } from '../query/test-fixtures.ts';
import { buildTestApp } from '../../test/helpers/app.ts';
import { keyring } from '../query/test-fixtures.ts';
import { analyzerPacer, createPacer, databaseBusy, pauseAfter, type PaceDecision } from './pacing.ts';
import { pendingCount, quietAnalyzer } from './test-kit.ts';

/**
 * Reads' latency under a synthetic analyzer backlog: the analyzer paces itself while reads use
 * the database (on another pool, as another instance's would) and runs at full speed once they
 * stop, clearing the backlog. Asserted on the pacer's decisions, never on wall time.
 */

const SHARE = 0.25;
/** Journeys pending at the start, taken BATCH at a time: enough batches for a busy and an idle stretch. */
const JOURNEYS = 400;
const BATCH = 10;

let fx: ReadFixture;
let readerPool: Pool;

beforeAll(async () => {
  fx = await createReadFixture();
  readerPool = createPool({ connectionString: fx.db.url, max: 4, statementTimeoutMs: 15_000 });
  const events = Array.from({ length: JOURNEYS }, (_, i) => ({
    id: `evt-backlog-${i}`, journeyId: `jrn-backlog-${i}`, timestamp: '2026-02-28T10:00:00.000Z',
    input: { customer: { id: `c${i}`, phone: '+33 6 12 34 56 78' } }, output: { customer: { id: `c${i}` } },
  }));
  await ingest(fx, 'production', events);
});
afterAll(async () => {
  await readerPool.end();
  await fx.close();
});

describe('the findings analyzer under a backlog', () => {
  it('yields to reads (a quarter of the time while they run), then clears the backlog at full speed', async () => {
    expect(await pendingCount(fx.db.pool)).toBe(JOURNEYS);
    const decisions: PaceDecision[] = [];
    const pacer = createPacer({ busyNow: databaseBusy(fx.db.pool), busyShare: SHARE, onDecision: (d) => decisions.push(d) });
    const analyzer = quietAnalyzer(fx.db.pool, { batchSize: BATCH, pacer });
    // Readers on an instance of their own (its own pool): the analyzer sees them only through the database.
    const { app: reader } = await buildTestApp(readerPool, { keyring });
    let reading = true;
    let reads = 0;
    const readers = Array.from({ length: 3 }, async () => {
      while (reading) {
        const response = await get({ ...fx, app: reader }, API_KEY, '/v1/journeys?limit=50&since=2026-01-01T00:00:00Z');
        expect(response.statusCode).toBe(200);
        reads++;
      }
    });
    // The analyzer starts once the reads run (their first requests warm the reader up).
    for (let waited = 0; reads < 6 && waited < 30_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    const drained = analyzer.drain();
    // While the reads run: a few batches, each followed by its decision (the first looks may fall
    // between two reads; from the first that sees one on, the batches are paced).
    const firstBusy = () => decisions.findIndex((d) => d.busy);
    for (let waited = 0; (firstBusy() < 0 || decisions.length < firstBusy() + 6) && waited < 30_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    reading = false;
    await Promise.all(readers);
    const whileReading = decisions.slice(firstBusy(), firstBusy() + 6);
    await drained;
    await analyzer.stop();
    await reader.close();

    expect(reads).toBeGreaterThan(0);
    // Busy every time, each pause the rule's (batch × (1 − share) / share, at most MAX_PAUSE_MS),
    // so the analyzer worked its share of the time (more only when a long batch met the cap), never less.
    expect(whileReading.map((d) => d.busy)).toEqual(Array(6).fill(true));
    for (const d of whileReading) expect(d.pauseMs).toBe(pauseAfter(d.batchMs, true, SHARE));
    const work = whileReading.reduce((n, d) => n + d.batchMs, 0);
    const paused = whileReading.reduce((n, d) => n + d.pauseMs, 0);
    expect(work / (work + paused)).toBeGreaterThanOrEqual(SHARE - 1e-9);
    expect(paused).toBeGreaterThan(0);
    // Once the reads stopped (and the busy hold passed), no pause: the rest went at full speed.
    const last = decisions.at(-1)!;
    expect(last).toMatchObject({ busy: false, pauseMs: 0 });
    expect(decisions.filter((d) => !d.busy).length).toBeGreaterThan(0);
    expect(await pendingCount(fx.db.pool)).toBe(0);
  }, 120_000);

  it('is not paced by a poller: a lock poll every 100 ms is rarely running at the instant it looks', async () => {
    const poller = await readerPool.connect();
    let polling = true;
    const polls = (async () => {
      while (polling) {
        // As the standby's poll of the analyzer lock (every 2 s), twenty times as often.
        await poller.query('SELECT pg_try_advisory_xact_lock(42) AS locked');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      const decisions: PaceDecision[] = [];
      const pacer = createPacer({ busyNow: databaseBusy(fx.db.pool), busyShare: SHARE, onDecision: (d) => decisions.push(d) });
      for (let i = 0; i < 40; i++) await pacer.pace(10);
      // A window over the wait would have seen a statement end in nearly every look and held the
      // verdict: paced throughout. Sampling instants, most looks find the database idle.
      expect(decisions.filter((d) => !d.busy).length).toBeGreaterThanOrEqual(20);
    } finally {
      polling = false;
      await polls;
      poller.release();
    }
  });

  it('counts its pauses in service_findings_analyzer_paced_seconds_total', async () => {
    const metrics = createMetrics();
    // A session holding a transaction open: busy for as long as it does.
    const holder = await readerPool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1');
    try {
      const pacer = analyzerPacer(fx.db.pool, SHARE, metrics);
      const decision = await pacer.pace(20);
      expect(decision).toEqual({ batchMs: 20, busy: true, pauseMs: 60, waitedMs: 60 });
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    expect(await metrics.registry.getSingleMetricAsString('service_findings_analyzer_paced_seconds_total')).toContain('service_findings_analyzer_paced_seconds_total 0.06');
  });
});
