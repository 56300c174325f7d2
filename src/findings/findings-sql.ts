// SQL of stored findings (migration 0019): one row per journey with findings, the findings as
// parallel arrays in the analyzer's order. The analyzer replaces a batch's rows and clears their
// marks (src/findings/pending-sql.ts) in one transaction.

import type { Queryable } from '../db/pool.ts';
import type { FindingKind, FindingStep, JourneyFinding } from './analyze.ts';
import { ArrayLiteral } from '../db/array-literals.ts';
import type { PendingJourney } from './pending-sql.ts';

export interface AnalysedJourney {
  journey: PendingJourney;
  findings: JourneyFinding[];
}

/** A journey's findings as stored: one array per column, an element per finding. */
interface FindingArrays {
  kind: FindingKind[];
  path: Array<string | null>;
  step_event_id: Array<string | null>;
  step_service: Array<string | null>;
  step_name: Array<string | null>;
  in_transit: boolean[];
  from_event_id: Array<string | null>;
  from_service: Array<string | null>;
  from_name: Array<string | null>;
}

interface StoredRow extends FindingArrays {
  environment_id: string;
  entity_type: string;
  observed_at: Date;
  first_found_at: Date[];
}

const ARRAY_COLUMNS = ['kind', 'path', 'step_event_id', 'step_service', 'step_name', 'in_transit', 'from_event_id', 'from_service', 'from_name'] as const;

/** The same finding (what first_found_at follows across analyses): kind, path, where and from where. */
const identity = (row: FindingArrays, i: number) =>
  `${row.kind[i]}\u0000${row.path[i] ?? '\u0001'}\u0000${row.step_event_id[i] ?? '\u0001'}\u0000${row.from_event_id[i] ?? '\u0001'}`;

function arraysOf(findings: readonly JourneyFinding[]): FindingArrays {
  return {
    kind: findings.map((f) => f.kind),
    path: findings.map((f) => f.path),
    step_event_id: findings.map((f) => f.step?.eventId ?? null),
    step_service: findings.map((f) => f.step?.service ?? null),
    step_name: findings.map((f) => f.step?.name ?? null),
    in_transit: findings.map((f) => f.inTransit),
    from_event_id: findings.map((f) => f.from?.eventId ?? null),
    from_service: findings.map((f) => f.from?.service ?? null),
    from_name: findings.map((f) => f.from?.name ?? null),
  };
}

/** When each finding was first found: as stored for one found again (the earliest), else now. */
function firstFound(after: FindingArrays, before: StoredRow | null, now: Date): Date[] {
  const known = new Map<string, Date>();
  for (let i = 0; i < (before?.kind.length ?? 0); i++) {
    const key = identity(before!, i);
    const at = before!.first_found_at[i]!;
    const seen = known.get(key);
    if (seen === undefined || at < seen) known.set(key, at);
  }
  return after.kind.map((_, i) => known.get(identity(after, i)) ?? now);
}

function unchanged(before: StoredRow, after: StoredRow): boolean {
  return (
    before.environment_id === after.environment_id &&
    before.entity_type === after.entity_type &&
    before.observed_at.getTime() === after.observed_at.getTime() &&
    before.kind.length === after.kind.length &&
    ARRAY_COLUMNS.every((column) => (before[column] as unknown[]).every((value, i) => value === after[column][i])) &&
    before.first_found_at.every((at, i) => at.getTime() === after.first_found_at[i]!.getTime())
  );
}

/**
 * In the caller's transaction: locks the journeys (project, then id in byte order, the order
 * ingestion locks them in, so the two never deadlock) reading their stored findings, then in one
 * statement writes the rows that differ, removes those of journeys left without findings, and
 * clears each mark that still holds the value read. Returns the journeys cleared.
 */
export async function storeAnalyses(db: Queryable, analysed: AnalysedJourney[], now: Date): Promise<number> {
  if (analysed.length === 0) return 0;
  const locked = await db.query<{ project_id: string; id: string; stored: boolean } & StoredRow>(
    `SELECT j.project_id, j.id, f.journey_id IS NOT NULL AS stored, f.environment_id, f.entity_type, f.observed_at,
            f.${ARRAY_COLUMNS.join(', f.')}, f.first_found_at
       FROM journeys j
       JOIN unnest($1::uuid[], $2::text[]) AS k(project_id, id) ON j.project_id = k.project_id AND j.id = k.id
       LEFT JOIN journey_findings f ON f.project_id = j.project_id AND f.journey_id = j.id
      ORDER BY j.project_id, j.id COLLATE "C" FOR UPDATE OF j`,
    [analysed.map((a) => a.journey.projectId), analysed.map((a) => a.journey.id)],
  );
  const stored = new Map(locked.rows.map((row) => [`${row.project_id}\u0000${row.id}`, row.stored ? row : null]));
  const writes = new Writes();
  const cleared: PendingJourney[] = [];
  for (const { journey, findings } of analysed) {
    const key = `${journey.projectId}\u0000${journey.id}`;
    if (!stored.has(key)) continue; // deleted meanwhile
    cleared.push(journey);
    const before = stored.get(key) ?? null;
    if (findings.length === 0) {
      if (before !== null) writes.emptied(journey);
      continue;
    }
    const arrays = arraysOf(findings);
    const after: StoredRow = {
      ...arrays,
      environment_id: journey.environmentId,
      entity_type: journey.entityType,
      observed_at: journey.lastEventAt,
      first_found_at: firstFound(arrays, before, now),
    };
    // Found again as it was: the row stays as it is.
    if (before === null || !unchanged(before, after)) writes.add(journey, after);
  }
  if (cleared.length === 0) return 0;
  const result = await db.query<{ cleared: number }>(
    `WITH journey AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::timestamptz[])
         WITH ORDINALITY AS j(project_id, journey_id, environment_id, entity_type, observed_at, n)
     ), step AS (
       SELECT * FROM unnest($6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS s(event_id, service, name, n)
     ), flat AS (
       SELECT r.journey, r.kind, r.path, s.event_id AS step_event_id, s.service AS step_service, s.name AS step_name, r.in_transit,
              f.event_id AS from_event_id, f.service AS from_service, f.name AS from_name, COALESCE(r.first_found_at, $9) AS first_found_at,
              r.ordinal
         FROM unnest($10::int8[], $11::text[], $12::text[], $13::int8[], $14::bool[], $15::int8[], $16::timestamptz[])
                WITH ORDINALITY AS r(journey, kind, path, step, in_transit, from_step, first_found_at, ordinal)
         LEFT JOIN step s ON s.n = r.step
         LEFT JOIN step f ON f.n = r.from_step
     ), grouped AS (
       SELECT journey, array_agg(kind ORDER BY ordinal) AS kind, array_agg(path ORDER BY ordinal) AS path,
              array_agg(step_event_id ORDER BY ordinal) AS step_event_id, array_agg(step_service ORDER BY ordinal) AS step_service,
              array_agg(step_name ORDER BY ordinal) AS step_name, array_agg(in_transit ORDER BY ordinal) AS in_transit,
              array_agg(from_event_id ORDER BY ordinal) AS from_event_id, array_agg(from_service ORDER BY ordinal) AS from_service,
              array_agg(from_name ORDER BY ordinal) AS from_name, array_agg(first_found_at ORDER BY ordinal) AS first_found_at,
              max(first_found_at) AS last_found_at
         FROM flat GROUP BY journey
     ), written AS (
       INSERT INTO journey_findings (project_id, journey_id, environment_id, entity_type, observed_at, last_found_at, kind, path,
          step_event_id, step_service, step_name, in_transit, from_event_id, from_service, from_name, first_found_at)
       SELECT j.project_id, j.journey_id, j.environment_id, j.entity_type, j.observed_at, g.last_found_at, g.kind, g.path,
          g.step_event_id, g.step_service, g.step_name, g.in_transit, g.from_event_id, g.from_service, g.from_name, g.first_found_at
         FROM grouped g JOIN journey j ON j.n = g.journey
       ON CONFLICT (project_id, journey_id) DO UPDATE SET environment_id = EXCLUDED.environment_id, entity_type = EXCLUDED.entity_type,
          observed_at = EXCLUDED.observed_at, last_found_at = EXCLUDED.last_found_at, kind = EXCLUDED.kind, path = EXCLUDED.path,
          step_event_id = EXCLUDED.step_event_id, step_service = EXCLUDED.step_service, step_name = EXCLUDED.step_name,
          in_transit = EXCLUDED.in_transit, from_event_id = EXCLUDED.from_event_id, from_service = EXCLUDED.from_service,
          from_name = EXCLUDED.from_name, first_found_at = EXCLUDED.first_found_at
     ), emptied AS (
       DELETE FROM journey_findings f USING unnest($17::uuid[], $18::text[]) AS e(project_id, journey_id)
        WHERE f.project_id = e.project_id AND f.journey_id = e.journey_id
     ), cleared AS (
       DELETE FROM journey_findings_pending p USING unnest($19::uuid[], $20::text[], $21::int8[]) AS k(project_id, journey_id, pending)
        WHERE p.project_id = k.project_id AND p.journey_id = k.journey_id AND p.pending = k.pending
       RETURNING 1
     )
     SELECT count(*)::int AS cleared FROM cleared`,
    [...writes.values(now), cleared.map((j) => j.projectId), cleared.map((j) => j.id), cleared.map((j) => j.pending)],
  );
  return result.rows[0]!.cleared;
}

/**
 * The rows to write as flat arrays (what unnest reads): one element per journey for what its
 * findings share; one per finding for the rest, with the journey's place (1-based) beside it,
 * its step and from step as places in a list of the batch's distinct steps, and its first-found
 * time null when it is now. Few elements per finding, and array literals built here
 * (array-literals.ts): node-postgres serialises an array parameter element by element, which
 * cost the analyzer more than its statements (docs/benchmarks.md, Findings).
 */
class Writes {
  private readonly journeys: PendingJourney[] = [];
  private readonly rows: StoredRow[] = [];
  private readonly gone: PendingJourney[] = [];

  add(journey: PendingJourney, row: StoredRow): void {
    this.journeys.push(journey);
    this.rows.push(row);
  }

  emptied(journey: PendingJourney): void {
    this.gone.push(journey);
  }

  values(now: Date): unknown[] {
    // The batch's distinct steps, found by event id without building a key per finding.
    const byEvent = new Map<string | null, Array<{ service: string | null; name: string | null; at: string }>>();
    const step = { eventId: new ArrayLiteral(), service: new ArrayLiteral(), name: new ArrayLiteral() };
    let count = 0;
    const place = (eventId: string | null, service: string | null, name: string | null): string => {
      if (eventId === null && service === null && name === null) return 'NULL';
      let known = byEvent.get(eventId);
      if (known === undefined) byEvent.set(eventId, (known = []));
      for (const candidate of known) if (candidate.service === service && candidate.name === name) return candidate.at;
      const at = String(++count);
      known.push({ service, name, at });
      step.eventId.text(eventId);
      step.service.text(service);
      step.name.text(name);
      return at;
    };
    const finding = { journey: new ArrayLiteral(), kind: new ArrayLiteral(), path: new ArrayLiteral(), step: new ArrayLiteral(),
      inTransit: new ArrayLiteral(), from: new ArrayLiteral(), firstFound: new ArrayLiteral() };
    const nowMs = now.getTime();
    this.rows.forEach((row, index) => {
      const journey = String(index + 1);
      for (let i = 0; i < row.kind.length; i++) {
        finding.journey.plain(journey);
        finding.kind.plain(row.kind[i]!);
        finding.path.text(row.path[i] ?? null);
        finding.step.plain(place(row.step_event_id[i] ?? null, row.step_service[i] ?? null, row.step_name[i] ?? null));
        finding.inTransit.plain(row.in_transit[i] ? 't' : 'f');
        finding.from.plain(place(row.from_event_id[i] ?? null, row.from_service[i] ?? null, row.from_name[i] ?? null));
        const first = row.first_found_at[i]!;
        finding.firstFound.plain(first.getTime() === nowMs ? 'NULL' : first.toISOString());
      }
    });
    return [
      this.journeys.map((j) => j.projectId),
      this.journeys.map((j) => j.id),
      this.rows.map((r) => r.environment_id),
      this.rows.map((r) => r.entity_type),
      this.rows.map((r) => r.observed_at),
      ...[step.eventId, step.service, step.name].map(String),
      now,
      ...Object.values(finding).map(String),
      this.gone.map((j) => j.projectId),
      this.gone.map((j) => j.id),
    ];
  }
}

function stepOf(eventId: string | null | undefined, service: string | null | undefined, name: string | null | undefined): FindingStep | null {
  return eventId == null || service == null || name == null ? null : { eventId, service, name };
}

/** Stored findings of some journeys of one project, in the order the analyzer found them. */
export async function selectFindings(db: Queryable, projectId: string, journeyIds: string[], perJourney: number | null): Promise<Map<string, JourneyFinding[]>> {
  const byJourney = new Map<string, JourneyFinding[]>(journeyIds.map((id) => [id, []]));
  if (journeyIds.length === 0) return byJourney;
  const result = await db.query<{ journey_id: string } & FindingArrays>(
    `SELECT journey_id, ${ARRAY_COLUMNS.join(', ')} FROM journey_findings WHERE project_id = $1 AND journey_id = ANY($2::text[])`,
    [projectId, journeyIds],
  );
  for (const row of result.rows) {
    const count = Math.min(row.kind.length, perJourney ?? Infinity);
    byJourney.set(
      row.journey_id,
      row.kind.slice(0, count).map((kind, i) => ({
        kind,
        path: row.path[i] ?? null,
        step: stepOf(row.step_event_id[i], row.step_service[i], row.step_name[i]),
        inTransit: row.in_transit[i]!,
        from: stepOf(row.from_event_id[i], row.from_service[i], row.from_name[i]),
      })),
    );
  }
  return byJourney;
}
