// SQL of the analyzer: the journeys marked by ingestion (migration 0007), their findings
// replaced and their mark cleared in one transaction, and the reads of stored findings.

import type { Queryable } from '../db/pool.ts';
import type { FindingKind, FindingStep, JourneyFinding } from './analyze.ts';

export interface PendingJourney {
  projectId: string;
  id: string;
  environmentId: string;
  entityType: string;
  startedAt: Date;
  lastEventAt: Date;
  /** The mark as read: cleared only if nothing marked the journey again meanwhile. */
  pending: string;
}

/** The oldest marks first: a journey marked long ago is not starved by busy ones. */
export async function selectPendingJourneys(db: Queryable, limit: number): Promise<PendingJourney[]> {
  const result = await db.query<{ project_id: string; id: string; environment_id: string; entity_type: string; started_at: Date; last_event_at: Date; findings_pending: string }>(
    `SELECT project_id, id, environment_id, entity_type, started_at, last_event_at, findings_pending
       FROM journeys WHERE findings_pending IS NOT NULL ORDER BY findings_pending LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({
    projectId: row.project_id,
    id: row.id,
    environmentId: row.environment_id,
    entityType: row.entity_type,
    startedAt: row.started_at,
    lastEventAt: row.last_event_at,
    pending: row.findings_pending,
  }));
}

export interface AnalysedJourney {
  journey: PendingJourney;
  findings: JourneyFinding[];
}

/** What a stored finding says: the columns a read turns back into a finding. */
interface FindingRecord {
  journey_id: string;
  kind: FindingKind;
  path: string | null;
  step_event_id: string | null;
  step_service: string | null;
  step_name: string | null;
  in_transit: boolean;
  from_event_id: string | null;
  from_service: string | null;
  from_name: string | null;
}

/** One stored finding row: what storing compares and writes. */
interface FindingRow extends FindingRecord {
  ordinal: number;
  environment_id: string;
  entity_type: string;
  observed_at: Date;
}

const ROW_COLUMNS = ['environment_id', 'entity_type', 'kind', 'path', 'step_event_id', 'step_service', 'step_name', 'in_transit',
  'from_event_id', 'from_service', 'from_name'] as const;

/** The same finding (what first_found_at follows across analyses): kind, path, where and from where. */
const identity = (row: Pick<FindingRow, 'kind' | 'path' | 'step_event_id' | 'from_event_id'>) =>
  `${row.kind}\u0000${row.path ?? '\u0001'}\u0000${row.step_event_id ?? '\u0001'}\u0000${row.from_event_id ?? '\u0001'}`;

const sameRow = (a: FindingRow, b: FindingRow) => a.observed_at.getTime() === b.observed_at.getTime() && ROW_COLUMNS.every((column) => a[column] === b[column]);

function rowsOf({ journey, findings }: AnalysedJourney): FindingRow[] {
  return findings.map((finding, ordinal) => ({
    journey_id: journey.id,
    ordinal,
    environment_id: journey.environmentId,
    entity_type: journey.entityType,
    kind: finding.kind,
    path: finding.path,
    step_event_id: finding.step?.eventId ?? null,
    step_service: finding.step?.service ?? null,
    step_name: finding.step?.name ?? null,
    in_transit: finding.inTransit,
    from_event_id: finding.from?.eventId ?? null,
    from_service: finding.from?.service ?? null,
    from_name: finding.from?.name ?? null,
    observed_at: journey.lastEventAt,
  }));
}

/**
 * In the caller's transaction: locks the journeys (project, then id in byte order, the order
 * ingestion locks them in, so the two never deadlock), replaces the findings of those still
 * there, and clears each mark that still holds the value read. Returns the journeys cleared.
 *
 * Set-based, one statement per step and project: a row found again unchanged at its place is
 * left as it is, and only the rows that differ are deleted and written (a journey analysed for
 * the first time has nothing to delete). Typed arrays, not JSON: PostgreSQL reads them for a
 * fraction of the cost of jsonb_to_recordset (docs/benchmarks.md, Findings).
 */
export async function storeAnalyses(db: Queryable, analysed: AnalysedJourney[], now: Date): Promise<number> {
  if (analysed.length === 0) return 0;
  const locked = await db.query<{ project_id: string; id: string }>(
    `SELECT j.project_id, j.id FROM journeys j
       JOIN unnest($1::uuid[], $2::text[]) AS k(project_id, id) ON j.project_id = k.project_id AND j.id = k.id
      ORDER BY j.project_id, j.id COLLATE "C" FOR UPDATE OF j`,
    [analysed.map((a) => a.journey.projectId), analysed.map((a) => a.journey.id)],
  );
  const present = new Set(locked.rows.map((row) => `${row.project_id}\u0000${row.id}`));
  const kept = analysed.filter((a) => present.has(`${a.journey.projectId}\u0000${a.journey.id}`));
  if (kept.length === 0) return 0;
  for (const projectId of new Set(kept.map((a) => a.journey.projectId))) {
    await replaceFindings(db, projectId, kept.filter((a) => a.journey.projectId === projectId), now);
  }
  const cleared = await db.query(
    `UPDATE journeys j SET findings_pending = NULL, findings_pending_at = NULL
       FROM unnest($1::uuid[], $2::text[], $3::int8[]) AS k(project_id, id, pending)
      WHERE j.project_id = k.project_id AND j.id = k.id AND j.findings_pending = k.pending`,
    [kept.map((a) => a.journey.projectId), kept.map((a) => a.journey.id), kept.map((a) => a.journey.pending)],
  );
  return cleared.rowCount ?? 0;
}

/** The findings of some locked journeys of one project replaced by those analysed, row by row. */
async function replaceFindings(db: Queryable, projectId: string, analysed: AnalysedJourney[], now: Date): Promise<void> {
  const ids = analysed.map((a) => a.journey.id);
  const old = await db.query<FindingRow & { first_found_at: Date }>(
    `SELECT journey_id, ordinal, ${ROW_COLUMNS.join(', ')}, observed_at, first_found_at
       FROM journey_findings WHERE project_id = $1 AND journey_id = ANY($2::text[])`,
    [projectId, ids],
  );
  const oldByJourney = new Map<string, Array<FindingRow & { first_found_at: Date }>>();
  for (const row of old.rows) {
    const rows = oldByJourney.get(row.journey_id) ?? [];
    rows[row.ordinal] = row;
    oldByJourney.set(row.journey_id, rows);
  }
  const removed: { journey: string[]; ordinal: number[] } = { journey: [], ordinal: [] };
  const written = new WrittenRows();
  for (const journey of analysed) {
    const before = oldByJourney.get(journey.journey.id);
    if (before === undefined) {
      // Analysed for the first time (the common case): every finding is new.
      journey.findings.forEach((finding, ordinal) => written.add(journey, ordinal, finding, null));
      continue;
    }
    // One found again keeps when it was first found, so alert windows count it once.
    const firstFound = new Map<string, Date>();
    for (const row of before) {
      if (row === undefined) continue;
      const known = firstFound.get(identity(row));
      if (known === undefined || row.first_found_at < known) firstFound.set(identity(row), row.first_found_at);
    }
    const after = rowsOf(journey);
    for (const row of after) {
      const previous = before[row.ordinal];
      const first = firstFound.get(identity(row)) ?? null;
      if (previous !== undefined && sameRow(previous, row) && previous.first_found_at.getTime() === (first ?? now).getTime()) continue;
      if (previous !== undefined) {
        removed.journey.push(row.journey_id);
        removed.ordinal.push(row.ordinal);
      }
      written.add(journey, row.ordinal, journey.findings[row.ordinal]!, first);
    }
    for (let ordinal = after.length; ordinal < before.length; ordinal++) {
      if (before[ordinal] === undefined) continue;
      removed.journey.push(journey.journey.id);
      removed.ordinal.push(ordinal);
    }
  }
  if (removed.journey.length > 0) {
    await db.query(
      `DELETE FROM journey_findings f USING unnest($2::text[], $3::int[]) AS k(journey_id, ordinal)
        WHERE f.project_id = $1 AND f.journey_id = k.journey_id AND f.ordinal = k.ordinal`,
      [projectId, removed.journey, removed.ordinal],
    );
  }
  if (written.journeyId.length === 0) return;
  await db.query(
    `INSERT INTO journey_findings (project_id, journey_id, ordinal, environment_id, entity_type, kind, path, step_event_id, step_service,
        step_name, in_transit, from_event_id, from_service, from_name, observed_at, first_found_at)
     SELECT $1, r.journey_id, r.ordinal, j.environment_id, j.entity_type, r.kind, r.path, r.step_event_id, r.step_service, r.step_name,
        r.in_transit, r.from_event_id, r.from_service, r.from_name, j.observed_at, COALESCE(r.first_found_at, $2)
       FROM unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bool[], $11::text[], $12::text[],
              $13::text[], $14::timestamptz[]) AS r(journey_id, ordinal, kind, path, step_event_id, step_service, step_name, in_transit,
              from_event_id, from_service, from_name, first_found_at)
       JOIN unnest($15::text[], $16::uuid[], $17::text[], $18::timestamptz[]) AS j(id, environment_id, entity_type, observed_at) ON j.id = r.journey_id`,
    [projectId, now, written.journeyId, written.ordinal, written.kind, written.path, written.stepEventId, written.stepService, written.stepName,
      written.inTransit, written.fromEventId, written.fromService, written.fromName, written.firstFoundAt,
      written.journeys.map((a) => a.journey.id), written.journeys.map((a) => a.journey.environmentId),
      written.journeys.map((a) => a.journey.entityType), written.journeys.map((a) => a.journey.lastEventAt)],
  );
}

/**
 * The rows to write as one array per column (what unnest reads); what every row of a journey
 * shares is kept once per journey, and a finding first found now as null.
 */
class WrittenRows {
  readonly journeys: AnalysedJourney[] = [];
  readonly journeyId: string[] = [];
  readonly ordinal: number[] = [];
  readonly kind: string[] = [];
  readonly path: Array<string | null> = [];
  readonly stepEventId: Array<string | null> = [];
  readonly stepService: Array<string | null> = [];
  readonly stepName: Array<string | null> = [];
  readonly inTransit: boolean[] = [];
  readonly fromEventId: Array<string | null> = [];
  readonly fromService: Array<string | null> = [];
  readonly fromName: Array<string | null> = [];
  readonly firstFoundAt: Array<Date | null> = [];

  add(journey: AnalysedJourney, ordinal: number, finding: JourneyFinding, firstFoundAt: Date | null): void {
    if (this.journeys.at(-1) !== journey) this.journeys.push(journey);
    this.journeyId.push(journey.journey.id);
    this.ordinal.push(ordinal);
    this.kind.push(finding.kind);
    this.path.push(finding.path);
    this.stepEventId.push(finding.step?.eventId ?? null);
    this.stepService.push(finding.step?.service ?? null);
    this.stepName.push(finding.step?.name ?? null);
    this.inTransit.push(finding.inTransit);
    this.fromEventId.push(finding.from?.eventId ?? null);
    this.fromService.push(finding.from?.service ?? null);
    this.fromName.push(finding.from?.name ?? null);
    this.firstFoundAt.push(firstFoundAt);
  }
}

/**
 * Marks journeys whose expectation's deadline or longest gap has passed since they were last
 * analysed, without their final step and not yet found overdue: time alone makes them overdue,
 * no event will mark them. At most `limit` per pass.
 */
export async function markDueJourneys(db: Queryable, now: Date, limit: number): Promise<number> {
  const result = await db.query(
    `UPDATE journeys j SET findings_pending = nextval('journey_findings_pending_seq'), findings_pending_at = $1
      WHERE (j.project_id, j.id) IN (
        SELECT d.project_id, d.id FROM journeys d
          JOIN expectations x ON x.project_id = d.project_id AND x.entity_type = d.entity_type
         WHERE d.findings_pending IS NULL
           AND ((x.deadline_seconds IS NOT NULL AND d.started_at + make_interval(secs => x.deadline_seconds) < $1)
             OR (x.max_gap_seconds IS NOT NULL AND d.last_event_at + make_interval(secs => x.max_gap_seconds) < $1))
           AND NOT EXISTS (SELECT 1 FROM events e WHERE e.project_id = d.project_id AND e.journey_id = d.id AND e.name = x.final_step)
           AND NOT EXISTS (SELECT 1 FROM journey_findings f WHERE f.project_id = d.project_id AND f.journey_id = d.id AND f.kind = 'overdue')
         LIMIT $2)`,
    [now, limit],
  );
  return result.rowCount ?? 0;
}

/** Seconds since the oldest mark still waiting (0 when none): the analyzer's lag. */
export async function selectLagSeconds(db: Queryable, now: Date): Promise<number> {
  const result = await db.query<{ lag: number | null }>(
    `SELECT EXTRACT(EPOCH FROM ($1::timestamptz - min(findings_pending_at)))::float8 AS lag FROM journeys WHERE findings_pending IS NOT NULL`,
    [now],
  );
  return Math.max(0, result.rows[0]?.lag ?? 0);
}

function stepOf(eventId: string | null, service: string | null, name: string | null): FindingStep | null {
  return eventId === null || service === null || name === null ? null : { eventId, service, name };
}

/** Stored findings of some journeys of one project, in the order the analyzer found them. */
export async function selectFindings(db: Queryable, projectId: string, journeyIds: string[], perJourney: number | null): Promise<Map<string, JourneyFinding[]>> {
  const byJourney = new Map<string, JourneyFinding[]>(journeyIds.map((id) => [id, []]));
  if (journeyIds.length === 0) return byJourney;
  const result = await db.query<FindingRecord>(
    `SELECT journey_id, kind, path, step_event_id, step_service, step_name, in_transit, from_event_id, from_service, from_name
       FROM journey_findings WHERE project_id = $1 AND journey_id = ANY($2::text[]) AND ($3::int IS NULL OR ordinal < $3)
      ORDER BY journey_id, ordinal`,
    [projectId, journeyIds, perJourney],
  );
  for (const row of result.rows) {
    byJourney.get(row.journey_id)?.push({
      kind: row.kind,
      path: row.path,
      step: stepOf(row.step_event_id, row.step_service, row.step_name),
      inTransit: row.in_transit,
      from: stepOf(row.from_event_id, row.from_service, row.from_name),
    });
  }
  return byJourney;
}
