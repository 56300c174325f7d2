// SQL of stored findings (migrations 0019, 0024): one row per journey with findings, the findings
// as parallel arrays in the analyzer's order, the steps they name listed once. The analyzer
// replaces a batch's rows and clears their marks (src/findings/pending-sql.ts) in one transaction.

import type { Queryable } from '../db/pool.ts';
import type { FindingKind, FindingStep, JourneyFinding } from './analyze.ts';
import { ArrayLiteral, textElement } from '../db/array-literals.ts';
import type { PendingJourney } from './pending-sql.ts';
import { advanceMarks, requeueMarks, selectWalkGenerations, upsertWalks, type StoredWalk } from './analysis-sql.ts';

export interface AnalysedJourney {
  journey: PendingJourney;
  /** null: the stored findings stay as they are (a walk started again has not reached the end yet). */
  findings: JourneyFinding[] | null;
  /** false: the journey has more events to walk; its mark goes to the back of the queue instead of being cleared. */
  finished?: boolean;
  /** The walk to store, and the generation of the stored one it went on from (null: none). */
  walk?: { read: number | null; stored: StoredWalk };
  /** When the walk's read began (the database's clock): what waits after this store was stored after it. */
  readAt?: Date;
}

/**
 * A journey's findings as stored (migration 0024): the steps they name, each once, in the order
 * they first name them (a finding's step before its from step), and one element per finding,
 * its steps referred to by place (1-based).
 */
interface FindingArrays {
  kind: FindingKind[];
  path: Array<string | null>;
  step_at: Array<number | null>;
  in_transit: boolean[];
  from_at: Array<number | null>;
  step_ids: string[];
  step_services: string[];
  step_names: string[];
}

interface StoredRow extends FindingArrays {
  environment_id: string;
  entity_type: string;
  observed_at: Date;
  first_found_at: Date[];
}

const ARRAY_COLUMNS = ['kind', 'path', 'step_at', 'in_transit', 'from_at', 'step_ids', 'step_services', 'step_names'] as const;

const eventIdAt = (row: FindingArrays, at: number | null | undefined) => (at == null ? '\u0001' : row.step_ids[at - 1]);

/** The same finding (what first_found_at follows across analyses): kind, path, where and from where. */
const identity = (row: FindingArrays, i: number) =>
  `${row.kind[i]}\u0000${row.path[i] ?? '\u0001'}\u0000${eventIdAt(row, row.step_at[i])}\u0000${eventIdAt(row, row.from_at[i])}`;

function arraysOf(findings: readonly JourneyFinding[]): FindingArrays {
  const arrays: FindingArrays = { kind: [], path: [], step_at: [], in_transit: [], from_at: [], step_ids: [], step_services: [], step_names: [] };
  const places = new Map<string, number>();
  const place = (step: FindingStep | null): number | null => {
    if (step === null) return null;
    let at = places.get(step.eventId);
    if (at === undefined) {
      at = arrays.step_ids.push(step.eventId);
      arrays.step_services.push(step.service);
      arrays.step_names.push(step.name);
      places.set(step.eventId, at);
    }
    return at;
  };
  for (const finding of findings) {
    arrays.kind.push(finding.kind);
    arrays.path.push(finding.path);
    arrays.step_at.push(place(finding.step));
    arrays.in_transit.push(finding.inTransit);
    arrays.from_at.push(place(finding.from));
  }
  return arrays;
}

/** When each finding was first found: as stored for one found again (the earliest), else now. */
function firstFound(after: FindingArrays, before: StoredRow | null, now: Date): Date[] {
  if (before === null) return after.kind.map(() => now);
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
    ARRAY_COLUMNS.every((column) => before[column].length === after[column].length && (before[column] as unknown[]).every((value, i) => value === after[column][i])) &&
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
  const locked = await db.query<{ project_id: string; id: string; stored: boolean } & StoredRow>({
    text: `SELECT j.project_id, j.id, f.journey_id IS NOT NULL AS stored, f.environment_id, f.entity_type, f.observed_at,
            f.${ARRAY_COLUMNS.join(', f.')}, f.first_found_at
       FROM journeys j
       JOIN unnest($1::uuid[], $2::text[]) AS k(project_id, id) ON j.project_id = k.project_id AND j.id = k.id
       LEFT JOIN journey_findings f ON f.project_id = j.project_id AND f.journey_id = j.id
      ORDER BY j.project_id, j.id COLLATE "C" FOR UPDATE OF j`,
    values: [analysed.map((a) => a.journey.projectId), analysed.map((a) => a.journey.id)],
  });
  const stored = new Map(locked.rows.map((row) => [`${row.project_id}\u0000${row.id}`, row.stored ? row : null]));
  const generations = analysed.some((a) => a.walk !== undefined) ? await selectWalkGenerations(db, analysed.map((a) => a.journey)) : null;
  const writes = new Writes();
  const cleared: PendingJourney[] = [];
  const requeued: PendingJourney[] = [];
  const walks: Array<{ projectId: string; journeyId: string; walk: StoredWalk }> = [];
  for (const { journey, findings, finished, walk } of analysed) {
    const key = `${journey.projectId}\u0000${journey.id}`;
    if (!stored.has(key)) continue; // deleted meanwhile
    // Another store went on from the same walk meanwhile (an instance that lost the lock): its result stands.
    if (walk !== undefined && generations!.get(key) !== walk.read) continue;
    if (walk !== undefined) walks.push({ projectId: journey.projectId, journeyId: journey.id, walk: walk.stored });
    (finished === false ? requeued : cleared).push(journey);
    if (findings === null) continue;
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
  await upsertWalks(db, walks);
  await requeueMarks(db, requeued);
  const advanced = analysed.filter((a) => a.readAt !== undefined && cleared.includes(a.journey)).map((a) => ({ ...a.journey, readAt: a.readAt! }));
  if (cleared.length === 0 && writes.isEmpty()) return 0;
  const written = writes.rows(now);
  const result = await db.query<{ cleared: number }>(
    `WITH ${written.sql === null ? '' : `written AS (
       ${insertRows(written.sql, '$6')}
       ON CONFLICT (project_id, journey_id) DO UPDATE SET environment_id = EXCLUDED.environment_id, entity_type = EXCLUDED.entity_type,
          observed_at = EXCLUDED.observed_at, last_found_at = EXCLUDED.last_found_at, kind = EXCLUDED.kind, path = EXCLUDED.path,
          step_at = EXCLUDED.step_at, in_transit = EXCLUDED.in_transit, from_at = EXCLUDED.from_at, step_ids = EXCLUDED.step_ids,
          step_services = EXCLUDED.step_services, step_names = EXCLUDED.step_names, first_found_at = EXCLUDED.first_found_at
     ), `}emptied AS (
       DELETE FROM journey_findings f USING unnest($1::uuid[], $2::text[]) AS e(project_id, journey_id)
        WHERE f.project_id = e.project_id AND f.journey_id = e.journey_id
     ), cleared AS (
       DELETE FROM journey_findings_pending p USING unnest($3::uuid[], $4::text[], $5::int8[]) AS k(project_id, journey_id, pending)
        WHERE p.project_id = k.project_id AND p.journey_id = k.journey_id AND p.pending = k.pending
       RETURNING 1
     )
     SELECT count(*)::int AS cleared FROM cleared`,
    [...writes.emptiedKeys(), cleared.map((j) => j.projectId), cleared.map((j) => j.id), cleared.map((j) => j.pending), ...(written.sql === null ? [] : [now, ...written.values])],
  );
  // After the clear: the marks left are those an event changed meanwhile.
  if (result.rows[0]!.cleared < cleared.length) await advanceMarks(db, advanced);
  return result.rows[0]!.cleared;
}

/**
 * Inserts the rows of a VALUES list (Writes.rows). A first-found time NULL is the parameter
 * `now`, and so is every one of a row whose first_found_at is NULL.
 */
function insertRows(values: string, now: string): string {
  const columns = `project_id, journey_id, environment_id, entity_type, observed_at, last_found_at, kind, path, step_at, in_transit, from_at,
      step_ids, step_services, step_names`;
  return `INSERT INTO journey_findings (${columns}, first_found_at)
     SELECT ${columns}, CASE WHEN first_found_at IS NULL THEN array_fill(${now}::timestamptz, ARRAY[cardinality(kind)])
                             ELSE array_replace(first_found_at, NULL, ${now}::timestamptz) END
       FROM (VALUES ${values}) AS r(${columns}, first_found_at)`;
}

/** A row's cells in the statement's VALUES, each one parameter cast to its column's type. */
const CELL_TYPES = ['uuid', 'text', 'uuid', 'text', 'timestamptz', 'timestamptz', 'text[]', 'text[]', 'int2[]', 'boolean[]', 'int2[]',
  'text[]', 'text[]', 'text[]', 'timestamptz[]'] as const;
/** Parameters before the rows' cells (the emptied and the cleared journeys, now). */
const FIRST_CELL = 7;

/**
 * The rows to write, one VALUES row per journey: what its findings share, and each of its finding
 * columns as one array literal (array-literals.ts) in a parameter of its own, which PostgreSQL
 * reads as the column's array type; a first-found time of now is written NULL (the statement puts
 * its now there). Whole rows cost PostgreSQL less than a flat list of findings gathered back per
 * journey with array_agg, and a parameter per cell is sent as it is, never escaped again
 * (docs/benchmarks.md, Findings).
 */
class Writes {
  private readonly journeys: PendingJourney[] = [];
  private readonly stored: StoredRow[] = [];
  private readonly gone: PendingJourney[] = [];

  add(journey: PendingJourney, row: StoredRow): void {
    this.journeys.push(journey);
    this.stored.push(row);
  }

  isEmpty(): boolean {
    return this.stored.length === 0 && this.gone.length === 0;
  }

  emptied(journey: PendingJourney): void {
    this.gone.push(journey);
  }

  emptiedKeys(): [string[], string[]] {
    return [this.gone.map((j) => j.projectId), this.gone.map((j) => j.id)];
  }

  rows(now: Date): { sql: string | null; values: unknown[] } {
    if (this.stored.length === 0) return { sql: null, values: [] };
    const nowMs = now.getTime();
    const values: unknown[] = [];
    const tuples: string[] = [];
    // Paths, services and step names repeat across a batch's journeys: each text is encoded once.
    const encoded = new Map<string, string>();
    const element = (value: string | null | undefined): string => {
      if (value == null) return 'NULL';
      let text = encoded.get(value);
      if (text === undefined) encoded.set(value, (text = textElement(value)));
      return text;
    };
    const place = (at: number | null | undefined) => (at == null ? 'NULL' : String(at));
    this.stored.forEach((row, index) => {
      const journey = this.journeys[index]!;
      const literal = () => new ArrayLiteral();
      const [kind, path, stepAt, inTransit, fromAt, stepIds, stepServices, stepNames, firstFound] =
        [literal(), literal(), literal(), literal(), literal(), literal(), literal(), literal(), literal()] as const;
      let last = -Infinity;
      let allNow = true;
      for (let i = 0; i < row.kind.length; i++) {
        kind.plain(row.kind[i]!);
        path.plain(element(row.path[i]));
        stepAt.plain(place(row.step_at[i]));
        inTransit.plain(row.in_transit[i] ? 't' : 'f');
        fromAt.plain(place(row.from_at[i]));
        const at = row.first_found_at[i]!.getTime();
        allNow &&= at === nowMs;
        firstFound.plain(at === nowMs ? 'NULL' : row.first_found_at[i]!.toISOString());
        if (at > last) last = at;
      }
      for (let i = 0; i < row.step_ids.length; i++) {
        stepIds.plain(element(row.step_ids[i]));
        stepServices.plain(element(row.step_services[i]));
        stepNames.plain(element(row.step_names[i]));
      }
      const first = FIRST_CELL + values.length;
      tuples.push(`(${CELL_TYPES.map((type, cell) => `$${first + cell}::${type}`).join(', ')})`);
      values.push(journey.projectId, journey.id, row.environment_id, row.entity_type, row.observed_at, new Date(last),
        ...[kind, path, stepAt, inTransit, fromAt, stepIds, stepServices, stepNames].map(String), allNow ? null : String(firstFound));
    });
    return { sql: tuples.join(', '), values };
  }
}

function stepAt(row: FindingArrays, at: number | null | undefined): FindingStep | null {
  return at == null ? null : { eventId: row.step_ids[at - 1]!, service: row.step_services[at - 1]!, name: row.step_names[at - 1]! };
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
        step: stepAt(row, row.step_at[i]),
        inTransit: row.in_transit[i]!,
        from: stepAt(row, row.from_at[i]),
      })),
    );
  }
  return byJourney;
}
