// One batch of the analyzer: the oldest marks, each journey walked on from its stored state over
// the events stored since (at most ANALYZER_JOURNEY_EVENTS of them: a journey with more is taken
// up again at a later batch, behind the others), then the findings, the walks and the marks
// stored in one short transaction (docs/findings.md, "Incremental analysis").

import { withTransaction } from '../db/pool.ts';
import type { AnalyzerDeps } from './analyzer.ts';
import { selectExpectation, type StoredExpectation } from './expectations-sql.ts';
import { storeAnalyses, type AnalysedJourney } from './findings-sql.ts';
import { advanceWalk, walkFindings } from './incremental-walk.ts';
import { ANALYZER_BATCH_SIZE, ANALYZER_JOURNEY_EVENTS } from './limits.ts';
import { selectPendingJourneys } from './pending-sql.ts';
import { readWalks, type ReadCounts } from './walk-read.ts';
import { expectationFingerprint, type Hasher } from './walk-state.ts';

export interface BatchResult {
  selected: number;
  cleared: number;
  /** Journeys left with events still to walk (their marks moved to the back of the queue). */
  unfinished: number;
}

/** Read and walk outside any transaction but the read's snapshot, then store in one short transaction. */
export async function analyseBatch(deps: AnalyzerDeps, now: () => number, hasher: { keyId: string; hash: Hasher }, counts: ReadCounts): Promise<BatchResult> {
  const pending = await selectPendingJourneys(deps.pool, deps.batchSize ?? ANALYZER_BATCH_SIZE);
  if (pending.length === 0) return { selected: 0, cleared: 0, unfinished: 0 };
  const expectations = new Map<string, StoredExpectation | null>();
  const expectationOf = async (projectId: string, entityType: string) => {
    const key = `${projectId}\u0000${entityType}`;
    if (!expectations.has(key)) expectations.set(key, await selectExpectation(deps.pool, projectId, entityType));
    return expectations.get(key) ?? null;
  };
  const take = deps.journeyEvents ?? ANALYZER_JOURNEY_EVENTS;
  const analysed: AnalysedJourney[] = [];
  let unfinished = 0;
  // One read per project of the batch (most batches hold one project).
  for (const projectId of new Set(pending.map((journey) => journey.projectId))) {
    const journeys = pending.filter((journey) => journey.projectId === projectId);
    const wanted = [];
    for (const journey of journeys) wanted.push({ id: journey.id, expectation: expectationFingerprint(await expectationOf(projectId, journey.entityType)) });
    const reads = await readWalks(deps.pool, projectId, wanted, hasher.keyId, take, counts);
    for (const journey of journeys) {
      const read = reads.get(journey.id);
      if (read === undefined) continue;
      const expectation = await expectationOf(projectId, journey.entityType);
      const { walk } = read;
      advanceWalk(walk.state, read.carried, read.events, expectation, hasher.hash);
      const last = read.events.at(-1);
      const stored = {
        walked: walk.walked + read.events.length,
        position: last === undefined ? walk.position : last.position,
        rewalking: walk.rewalking && !read.finished,
        generation: (read.readGeneration ?? 0) + 1,
        state: walk.state,
      };
      if (!read.finished) unfinished++;
      // A walk started again keeps the stored findings until it reaches the end.
      const findings = stored.rewalking ? null : walkFindings(walk.state, journey.startedAt.getTime(), expectation, now());
      // Nothing walked (a pass the clock asked for, an expectation's deadline): the stored walk stands as it is.
      const changed = read.events.length > 0 || read.readGeneration === null || stored.rewalking !== walk.rewalking;
      analysed.push({ journey, findings, finished: read.finished, readAt: read.readAt, ...(changed ? { walk: { read: read.readGeneration, stored } } : {}) });
    }
  }
  await deps.beforeStore?.(analysed);
  const cleared = await withTransaction(deps.pool, async (client) => {
    // Findings are derived data: a commit the database loses in a crash loses the cleared marks
    // with it, and those journeys are analysed again. So the analyzer does not wait for its
    // commits to reach the disk, and adds no flushes of its own to ingestion's.
    await client.query('SET LOCAL synchronous_commit = off');
    return storeAnalyses(client, analysed, new Date(now()));
  });
  deps.metrics.findingsAnalysed.inc(analysed.length);
  // Counted per kind, then added once per kind: a labelled increment per finding showed in the analyzer's profile.
  const byKind = new Map<string, number>();
  for (const { findings } of analysed) for (const finding of findings ?? []) byKind.set(finding.kind, (byKind.get(finding.kind) ?? 0) + 1);
  for (const [kind, count] of byKind) deps.metrics.findingsStored.inc({ kind }, count);
  deps.metrics.analyzerBatches.inc();
  return { selected: pending.length, cleared, unfinished };
}
