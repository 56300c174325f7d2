import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { contactJourney, everyContactJourney } from '../forensics/test-journeys.ts';
import { ADMIN, createReadFixture, get, ingest, type ReadFixture } from '../query/test-fixtures.ts';
import { TEST_ADMIN_TOKEN, buildTestApp } from '../../test/helpers/app.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { MAX_FINDINGS_PER_LIST_ITEM } from '../query/journeys-sql.ts';
import type { Analyzer } from './analyzer.ts';
import { MAX_FINDINGS_PER_JOURNEY } from './limits.ts';
import { allFindingRows, drainAll, markAll, pendingCount, quietAnalyzer, storedFindings } from './test-kit.ts';

let fx: ReadFixture;
const analyzers: Analyzer[] = [];
const analyzer = (extra: Parameters<typeof quietAnalyzer>[1] = {}) => {
  const made = quietAnalyzer(fx.db.pool, extra);
  analyzers.push(made);
  return made;
};

beforeAll(async () => {
  fx = await createReadFixture();
});
afterEach(async () => {
  while (analyzers.length > 0) await analyzers.pop()!.stop();
  await fx.db.pool.query('DELETE FROM journeys');
});
afterAll(async () => fx.close());

describe('the findings analyzer', () => {
  it('finds the lost phone within a step and in transit, from the marks ingestion wrote', async () => {
    await ingest(fx, 'production', everyContactJourney());
    expect(await pendingCount(fx.db.pool)).toBe(6);
    await drainAll(analyzer(), fx.db.pool);
    const lost = (await storedFindings(fx.db.pool, fx.projectId, 'jrn-lost')).filter((f) => f.path === 'customer.phone');
    expect(lost).toEqual([
      { kind: 'lost', path: 'customer.phone', step: { eventId: 'jrn-lost-1-normalize', service: 'contacts', name: 'normalize-contact' }, inTransit: false, from: null },
    ]);
    const transit = (await storedFindings(fx.db.pool, fx.projectId, 'jrn-transit')).find((f) => f.path === 'customer.phone');
    expect(transit).toMatchObject({ kind: 'lost', step: { name: 'persist' }, inTransit: true, from: { name: 'normalize-contact' } });
    const kept = await storedFindings(fx.db.pool, fx.projectId, 'jrn-kept');
    expect(kept.filter((f) => f.path === 'customer.phone')).toEqual([]);
  });

  it('finds the same whatever the order and the batches the events came in', async () => {
    const events = contactJourney('jrn-shuffled', 'transit');
    const engine = analyzer();
    // Newest first, one event per batch, analysed between batches.
    for (const event of [...events].reverse()) {
      await ingest(fx, 'production', [event]);
      await drainAll(engine, fx.db.pool);
    }
    await ingest(fx, 'production', contactJourney('jrn-at-once', 'transit').map((e) => ({ ...e, journeyId: 'jrn-at-once' })));
    await drainAll(engine, fx.db.pool);
    const strip = (rows: Awaited<ReturnType<typeof storedFindings>>, id: string) => JSON.stringify(rows).replaceAll(id, 'ID');
    expect(strip(await storedFindings(fx.db.pool, fx.projectId, 'jrn-shuffled'), 'jrn-shuffled')).toBe(
      strip(await storedFindings(fx.db.pool, fx.projectId, 'jrn-at-once'), 'jrn-at-once'),
    );
  });

  it('analyses a journey again when an event is stored while it is being analysed', async () => {
    const events = contactJourney('jrn-race', 'kept');
    await ingest(fx, 'production', events.slice(0, 1));
    let injected = false;
    const engine = analyzer({
      beforeStore: async () => {
        if (injected) return;
        injected = true;
        // Committed after the analyzer read the journey, before it stores: the mark must survive.
        await ingest(fx, 'production', [{ ...events[1]!, output: { customer: { name: 'Ada Lovelace' } } }]);
      },
    });
    await engine.drain();
    expect(await pendingCount(fx.db.pool)).toBe(1);
    await drainAll(engine, fx.db.pool);
    const findings = await storedFindings(fx.db.pool, fx.projectId, 'jrn-race');
    expect(findings.map((f) => `${f.kind} ${f.path}`)).toContain('lost customer.phone');
  });

  it('counts the lag of a journey fed while it is analysed from that analysis, not from its first mark', async () => {
    const events = contactJourney('jrn-fed', 'kept');
    await ingest(fx, 'production', events.slice(0, 1));
    // Waiting for an hour: a journey fed without a pause keeps its mark from one pass to the next.
    await fx.db.pool.query(`UPDATE journey_findings_pending SET pending_at = now() - interval '1 hour'`);
    let injected = false;
    const engine = analyzer({
      beforeStore: async () => {
        if (injected) return;
        injected = true;
        await ingest(fx, 'production', [events[1]!]);
      },
    });
    await engine.drain();
    // What waits now is only the event stored during the analysis.
    const lag = await fx.db.pool.query<{ seconds: number }>(`SELECT EXTRACT(EPOCH FROM now() - pending_at)::float8 AS seconds FROM journey_findings_pending`);
    expect(lag.rows).toHaveLength(1);
    expect(lag.rows[0]!.seconds).toBeLessThan(60);
    await drainAll(engine, fx.db.pool);
  });

  it('stores duplicated and failed steps', async () => {
    const [receive, normalize] = contactJourney('jrn-dup', 'kept');
    await ingest(fx, 'production', [
      receive!,
      normalize!,
      { ...normalize!, id: 'jrn-dup-again', timestamp: '2026-02-10T10:00:05.000Z', output: { customer: { name: 'Other' } } },
      { id: 'jrn-dup-fail', journeyId: 'jrn-dup', timestamp: '2026-02-10T10:00:06.000Z', entity: { type: 'contact', id: 'contact-1' }, operation: 'failed', name: 'deliver', service: 'worker', error: { type: 'Timeout', message: 'x' } },
    ]);
    await drainAll(analyzer(), fx.db.pool);
    const findings = await storedFindings(fx.db.pool, fx.projectId, 'jrn-dup');
    expect(findings.filter((f) => f.kind === 'duplicated')).toEqual([
      { kind: 'duplicated', path: null, step: { eventId: 'jrn-dup-again', service: 'contacts', name: 'normalize-contact' }, inTransit: false, from: { eventId: 'jrn-dup-1-normalize', service: 'contacts', name: 'normalize-contact' } },
    ]);
    expect(findings.filter((f) => f.kind === 'failed').map((f) => f.step?.eventId)).toEqual(['jrn-dup-fail']);
  });

  it('rewrites only the findings that changed, keeping when each was first found', async () => {
    // The journey's one row: where it is stored, and each finding's kind and first-found time.
    const row = async () => {
      const result = await fx.db.pool.query<{ ctid: string; kind: string[]; first: string[] }>(
        `SELECT ctid::text AS ctid, kind, first_found_at::text[] AS first FROM journey_findings WHERE journey_id = 'jrn-again'`,
      );
      expect(result.rows).toHaveLength(1);
      return result.rows[0]!;
    };
    const findings = async () => {
      const { kind, first } = await row();
      return kind.map((k, i) => ({ kind: k, first: first[i] }));
    };
    // Each pass on its own clock, by an analyzer that lets the lock go when done.
    const analyseAt = async (iso: string) => {
      const engine = quietAnalyzer(fx.db.pool, { now: () => Date.parse(iso) });
      await drainAll(engine, fx.db.pool);
      await engine.stop();
    };
    const events = contactJourney('jrn-again', 'lost');
    await ingest(fx, 'production', events);
    await analyseAt('2026-03-01T00:00:00Z');
    const first = await row();
    expect(first.kind.length).toBeGreaterThan(0);
    const firstFindings = await findings();
    // Analysed again with nothing new: the row stays where it was.
    await markAll(fx.db.pool);
    await analyseAt('2026-03-02T00:00:00Z');
    expect(await row()).toEqual(first);
    // A finding the analysis no longer has is removed.
    await fx.db.pool.query(
      `UPDATE journey_findings SET kind = kind || 'failed'::text, path = path || NULL::text, step_at = step_at || NULL::smallint,
              in_transit = in_transit || false, from_at = from_at || NULL::smallint, first_found_at = first_found_at || now()
        WHERE journey_id = 'jrn-again'`,
    );
    expect((await row()).kind).toHaveLength(first.kind.length + 1);
    await markAll(fx.db.pool);
    await analyseAt('2026-03-03T00:00:00Z');
    expect(await findings()).toEqual(firstFindings);
    // A later event: the old findings keep when they were first found, the new one is found now.
    await ingest(fx, 'production', [{ id: 'jrn-again-fail', journeyId: 'jrn-again', timestamp: '2026-02-11T10:00:00.000Z', entity: { type: 'contact', id: 'contact-1' }, operation: 'failed', name: 'deliver', service: 'worker', error: { type: 'Timeout', message: 'x' } }]);
    await analyseAt('2026-03-04T00:00:00Z');
    const after = await findings();
    expect(after.slice(0, firstFindings.length).map((f) => f.first)).toEqual(firstFindings.map((f) => f.first));
    expect(after.filter((f) => f.kind === 'failed').map((f) => f.first)).toEqual(['2026-03-04 00:00:00+00']);
  });

  it('stores one row per journey with findings and leaves the journeys rows as ingestion wrote them', async () => {
    await ingest(fx, 'production', everyContactJourney());
    const journeyRows = async () => (await fx.db.pool.query<{ id: string; ctid: string }>(`SELECT id, ctid::text AS ctid FROM journeys ORDER BY id`)).rows;
    const before = await journeyRows();
    await drainAll(analyzer(), fx.db.pool);
    // Clearing a mark rewrites nothing of journeys (a new row version would move it).
    expect(await journeyRows()).toEqual(before);
    const rows = await fx.db.pool.query<{ journey_id: string; findings: number }>(
      `SELECT journey_id, cardinality(kind) AS findings FROM journey_findings ORDER BY journey_id`,
    );
    const withFindings = [];
    for (const { id } of before) {
      const findings = await storedFindings(fx.db.pool, fx.projectId, id);
      if (findings.length > 0) withFindings.push({ journey_id: id, findings: findings.length });
    }
    expect(withFindings.length).toBeGreaterThan(0);
    expect(rows.rows).toEqual(withFindings);
  });

  it('keeps at most 100 findings per journey; the list shows 10 of them, the journey read all', async () => {
    const wide = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`field${i}`, i]));
    await ingest(fx, 'production', [{ id: 'wide-1', journeyId: 'jrn-wide', timestamp: '2026-02-10T10:00:00.000Z', input: wide, output: {} }]);
    await drainAll(analyzer(), fx.db.pool);
    expect(await storedFindings(fx.db.pool, fx.projectId, 'jrn-wide')).toHaveLength(MAX_FINDINGS_PER_JOURNEY);
    const list = await get(fx, ADMIN, '/v1/journeys?since=2026-02-01T00:00:00Z&finding=lost');
    expect(list.json().data.items[0].findings).toHaveLength(MAX_FINDINGS_PER_LIST_ITEM);
    expect((await get(fx, ADMIN, '/v1/journeys/jrn-wide')).json().data.findings).toHaveLength(MAX_FINDINGS_PER_JOURNEY);
  });

  it('removes findings with their journey', async () => {
    await ingest(fx, 'production', contactJourney('jrn-gone', 'lost'));
    await drainAll(analyzer(), fx.db.pool);
    expect((await storedFindings(fx.db.pool, fx.projectId, 'jrn-gone')).length).toBeGreaterThan(0);
    const response = await fx.app.inject({ method: 'DELETE', url: '/v1/journeys/jrn-gone', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': fx.projectId } });
    expect(response.statusCode, response.body).toBe(204);
    expect(await allFindingRows(fx.db.pool)).toEqual([]);
  });

  it('reports its lag and counters in the metrics', async () => {
    // An app on a clock a minute after the marks: every instance reads the lag from the database.
    const { app, deps } = await buildTestApp(fx.db.pool, { now: () => Date.now() + 60_000 });
    await ingest(fx, 'production', contactJourney('jrn-lag', 'lost'));
    const lag = async () => Number(/^service_findings_lag_seconds (\S+)$/m.exec(await deps.metrics.registry.metrics())![1]);
    expect(await lag()).toBeGreaterThan(55);
    const metrics = createMetrics();
    await drainAll(analyzer({ metrics }), fx.db.pool);
    expect(await lag()).toBe(0);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/service_findings_journeys_analysed_total 1\b/);
    expect(text).toMatch(/service_findings_stored_total\{kind="lost"\} [1-9]/);
    await app.close();
  });

  it('runs in one instance at a time; another takes over when it stops', async () => {
    await ingest(fx, 'production', contactJourney('jrn-one', 'lost'));
    const first = analyzer();
    await first.drain();
    expect(first.holdsLock()).toBe(true);
    // Started once the first holds the lock: started together, either may take it first.
    const second = analyzer();
    await ingest(fx, 'production', contactJourney('jrn-two', 'lost'));
    expect(await second.drain()).toBe(0);
    expect(second.holdsLock()).toBe(false);
    expect(await pendingCount(fx.db.pool)).toBe(1);
    await first.stop();
    await drainAll(second, fx.db.pool);
    expect(second.holdsLock()).toBe(true);
    expect(await pendingCount(fx.db.pool)).toBe(0);
    // Both serve the findings: the read is the database's.
    expect((await get(fx, ADMIN, '/v1/journeys/jrn-two')).statusCode).toBe(200);
  });
});
