// SQL of search and the journey list: keyset pages in the order lastEventAt desc, journeyId desc
// (ids in byte order, COLLATE "C", the collation of the 0002 keyset indexes). Only the
// conditions a request names are written into the statement, so each request gets the plan of
// its own filters (journeys_list, journeys_environment_list, journeys_status_list,
// journeys_environment_status_list; migration 0002).

import type { KeyStanding } from '../auth/credentials.ts';
import type { Queryable } from '../db/pool.ts';
import type { JourneyPosition } from './cursor.ts';
import type { JourneyRecord } from './details-sql.ts';
import { findingsJsonSql, hasFindingSql } from './findings-sql.ts';
import { epochMicrosSql, microsText } from './micros.ts';
import { NO_COMMON_TRIGRAMS, type CommonTrigrams } from './common-trigrams.ts';
import { rareSubstring } from './rare-substring.ts';

/** Findings shown on one list item; the journey read shows them all. */
export const MAX_FINDINGS_PER_LIST_ITEM = 10;

/** Filters of one journey page, all already resolved to stored values. */
export interface JourneyScan {
  projectId: string;
  /** null = every environment of the project. */
  environmentId: string | null;
  sinceUs: bigint | null;
  untilUs: bigint | null;
  status: string | null;
  service: string | null;
  entityType: string | null;
  /** Journeys with a finding of this kind (and this path, when given). */
  finding: { kind: string; path: string | null } | null;
  after: JourneyPosition | null;
  /** Rows to read: the page size plus one, to know whether a next page exists. */
  take: number;
  /** An API key verified in memory: the statement confirms its row and reads nothing unless it stands. */
  standing?: KeyStanding;
}

/** What the statement found of the key's row: whether it stands as verified, and whether its use is recent. */
export interface StandingFound {
  ok: boolean;
  recentlyUsed: boolean;
}

export interface SummaryPage {
  rows: SummaryRecord[];
  /** null when the scan had no key to confirm. */
  standing: StandingFound | null;
}

/** A journey list or search row: the detail's columns less completedAt and services, plus the cursor position. */
export interface SummaryRecord extends Omit<JourneyRecord, 'completed_at' | 'services'> {
  last_event_us: string;
  aliases: Array<{ type: string; value: string }>;
}

/** Positional parameters of one statement. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const ORDER = 'ORDER BY j.last_event_at DESC, j.id COLLATE "C" DESC';

function conditions(scan: JourneyScan, params: Params): string {
  const where = [`j.project_id = ${params.add(scan.projectId)}`];
  // An uncorrelated condition: a one-time filter, so each filter keeps the plan it has without it.
  if (scan.standing !== undefined) where.push('EXISTS (SELECT 1 FROM standing WHERE standing.ok)');
  if (scan.environmentId !== null) where.push(`j.environment_id = ${params.add(scan.environmentId)}`);
  if (scan.status !== null) where.push(`j.status = ${params.add(scan.status)}`);
  if (scan.sinceUs !== null) where.push(`j.last_event_at >= ${params.add(microsText(scan.sinceUs))}::timestamptz`);
  if (scan.untilUs !== null) where.push(`j.last_event_at < ${params.add(microsText(scan.untilUs))}::timestamptz`);
  if (scan.service !== null) where.push(`j.services @> ARRAY[${params.add(scan.service)}::text]`);
  if (scan.entityType !== null) where.push(`j.entity_type = ${params.add(scan.entityType)}`);
  if (scan.finding !== null) {
    where.push(hasFindingSql(params.add(scan.finding.kind), scan.finding.path === null ? null : params.add(scan.finding.path)));
  }
  if (scan.after !== null) {
    const at = params.add(microsText(scan.after.lastEventUs));
    where.push(`(j.last_event_at, j.id COLLATE "C") < (${at}::timestamptz, ${params.add(scan.after.journeyId)}::text)`);
  }
  return where.join(' AND ');
}

/**
 * Turns the ids of one page into summaries: environment name, and the displayable aliases in
 * type then value order, code points (a value holding NUL has no display_value: never listed).
 */
function hydrate(pageSql: string, scan: JourneyScan, params: Params): string {
  const summaries = `SELECT j.id, e.name AS environment, j.entity_type, j.entity_id_encrypted, j.status, j.label, j.last_step, j.failed_step,
           j.event_count, j.started_at, j.last_event_at, ${epochMicrosSql('j.last_event_at')} AS last_event_us,
           COALESCE((SELECT json_agg(json_build_object('type', a.alias_type, 'value', a.display_value)
                                     ORDER BY a.alias_type COLLATE "C", a.display_value COLLATE "C")
                       FROM journey_aliases a
                      WHERE a.project_id = j.project_id AND a.journey_id = j.id AND a.display_value IS NOT NULL), '[]'::json) AS aliases,
           ${findingsJsonSql(MAX_FINDINGS_PER_LIST_ITEM)} AS findings
      FROM page p
      JOIN journeys j ON j.project_id = p.project_id AND j.id = p.id
      JOIN environments e ON e.project_id = j.project_id AND e.id = j.environment_id`;
  if (scan.standing === undefined) return `WITH page AS (${pageSql}) ${summaries} ${ORDER}`;
  // The key's standing comes back even on an empty page: one row of it, joined to the summaries.
  return `WITH ${standingSql(scan.standing, params)}, page AS (${pageSql}), summaries AS (${summaries})
    SELECT st.ok AS standing_ok, st.recent AS standing_recent, s.*
      FROM (SELECT COALESCE(bool_or(ok), false) AS ok, COALESCE(bool_or(recent), false) AS recent FROM standing) st
      LEFT JOIN summaries s ON true
     ORDER BY s.last_event_at DESC, s.id COLLATE "C" DESC`;
}

/**
 * The API key's row as it was verified (credentials.requireReaderConfirmedByRead): still there,
 * not revoked, the same hash under the same key; and whether its last use was recorded less than
 * a minute ago, as the full check reads it. One probe of the prefix's unique index.
 */
function standingSql(standing: KeyStanding, params: Params): string {
  return `standing AS (
    SELECT k.revoked_at IS NULL AND k.hash = ${params.add(standing.hash)} AND k.hash_key_id = ${params.add(standing.hashKeyId)} AS ok,
           COALESCE(k.last_used_at >= now() - interval '1 minute', false) AS recent
      FROM api_keys k
     WHERE k.prefix = ${params.add(standing.prefix)} AND k.project_id = ${params.add(standing.projectId)}::uuid AND k.id = ${params.add(standing.keyId)}::uuid)`;
}

/** Shortest q the trigram indexes can search with: a trigram is three characters. */
const MIN_TRIGRAM_TEXT = 3;

/** Where q is looked for; each has its own trigram index and statistics. */
type TextPlace = keyof CommonTrigrams;

/** `%text%` for LIKE: `%`, `_` and `\` are ordinary characters of q, escaped (LIKE's escape is `\`). */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The case-insensitive substring test of q against a column: both sides through the database's
 * lower(), on which the trigram indexes are built, and LIKE with q escaped.
 *
 * Where q holds a trigram common among the place's values (migration 0023), the index is probed
 * with the longest part of q free of them (src/query/rare-substring.ts), and strpos, which no
 * index serves, decides on the rows found: the same answer through short posting lists.
 *
 * A q of two characters holds no trigram: the trigram index would be read whole (2.2 s at a
 * million journeys). It is answered by the two-character index instead (migration 0018): every
 * value containing q holds q's pair among its own, so the containment is a necessary condition
 * the GIN index serves, and the LIKE decides. COLLATE "C" on the pattern keeps the planner off
 * the trigram index (an index serves only clauses of its own collation) without changing the
 * result (LIKE matches the same under any deterministic collation).
 */
function textMatch(text: string, params: Params, common: CommonTrigrams): (column: string, place: TextPlace) => string {
  if ([...text].length >= MIN_TRIGRAM_TEXT) {
    // Added once used: PostgreSQL cannot type a parameter no clause names.
    let pattern: string | null = null;
    let whole: string | null = null;
    return (column, place) => {
      const part = rareSubstring(text, common[place]);
      if (part === null) return `lower(${column}) LIKE lower(${(pattern ??= params.add(containsPattern(text)))})`;
      return `lower(${column}) LIKE lower(${params.add(containsPattern(part))}::text) AND strpos(lower(${column}), lower(${(whole ??= params.add(text))}::text)) > 0`;
    };
  }
  const pattern = params.add(containsPattern(text));
  const pair = params.add(text);
  return (column) => `jtrace_bigrams(${column}) @> jtrace_bigrams(${pair}::text) AND lower(${column}) LIKE lower(${pattern}) COLLATE "C"`;
}

/** The statement of one journey-list page; exported so the benchmark can EXPLAIN it. */
export function journeyListStatement(
  scan: JourneyScan,
  text: string | null,
  common: CommonTrigrams = NO_COMMON_TRIGRAMS,
): { sql: string; values: unknown[] } {
  const params = new Params();
  const where = conditions(scan, params);
  const take = params.add(scan.take);
  if (text === null) {
    return { sql: hydrate(`SELECT j.project_id, j.id FROM journeys j WHERE ${where} ${ORDER} LIMIT ${take}`, scan, params), values: params.values };
  }
  const matches = textMatch(text, params, common);
  // One branch per place q may match, each with its own LIMIT: the planner picks, per branch,
  // a trigram probe (rare text) or a walk down the keyset index (common text).
  const byLabel = `SELECT j.project_id, j.id, j.last_event_at FROM journeys j
     WHERE ${where} AND j.label IS NOT NULL AND ${matches('j.label', 'label')} ${ORDER} LIMIT ${take}`;
  const byAlias = `SELECT j.project_id, j.id, j.last_event_at FROM journeys j
     WHERE ${where} AND EXISTS (SELECT 1 FROM journey_aliases a
                                 WHERE a.project_id = j.project_id AND a.journey_id = j.id
                                   AND a.display_value IS NOT NULL AND ${matches('a.display_value', 'alias')})
     ${ORDER} LIMIT ${take}`;
  const page = `SELECT m.project_id, m.id FROM ((${byLabel}) UNION (${byAlias})) m
     ORDER BY m.last_event_at DESC, m.id COLLATE "C" DESC LIMIT ${take}`;
  return { sql: hydrate(page, scan, params), values: params.values };
}

/**
 * The statement of one search page: one probe of (project_id, token) per configured key in
 * search_tokens, and in the trace and span token indexes of event_ids (migration 0022: those ids'
 * tokens sit beside each event's id). The subquery names the project by parameter, not by
 * j.project_id: a correlated IN could not be planned as a semi-join.
 */
export function searchStatement(scan: JourneyScan, tokens: string[], looseTokens: string[] = []): { sql: string; values: unknown[] } {
  const params = new Params();
  const where = conditions(scan, params);
  const project = params.add(scan.projectId);
  const wanted = `ANY(${params.add(tokens)}::text[])`;
  // Only a loose search (match=loose) reads the loose tokens: an exact one is the statement it always was.
  const loose = looseTokens.length === 0 ? '' : `
                                 UNION ALL
                                 SELECT l.journey_id FROM loose_search_tokens l WHERE l.project_id = ${project} AND l.token = ANY(${params.add(looseTokens)}::text[])`;
  const page = `SELECT j.project_id, j.id FROM journeys j
     WHERE ${where} AND j.id IN (SELECT t.journey_id FROM search_tokens t WHERE t.project_id = ${project} AND t.token = ${wanted}
                                 UNION ALL
                                 SELECT i.journey_id FROM event_ids i WHERE i.project_id = ${project} AND i.trace_token = ${wanted}
                                 UNION ALL
                                 SELECT i.journey_id FROM event_ids i WHERE i.project_id = ${project} AND i.span_token = ${wanted}${loose})
     ${ORDER} LIMIT ${params.add(scan.take)}`;
  return { sql: hydrate(page, scan, params), values: params.values };
}

type StandingRow = SummaryRecord & { standing_ok?: boolean; standing_recent?: boolean };

async function summaryPage(db: Queryable, scan: JourneyScan, statement: { sql: string; values: unknown[] }): Promise<SummaryPage> {
  const rows = (await db.query<StandingRow>(statement.sql, statement.values)).rows;
  if (scan.standing === undefined) return { rows, standing: null };
  const first = rows[0];
  const standing = { ok: first?.standing_ok === true, recentlyUsed: first?.standing_recent === true };
  // Without a journey the one row holds only the standing.
  const journeys = rows.filter((row) => row.id !== null).map(({ standing_ok: _ok, standing_recent: _recent, ...row }) => row);
  return { rows: journeys, standing };
}

export function selectJourneyList(db: Queryable, scan: JourneyScan, text: string | null, common?: CommonTrigrams): Promise<SummaryPage> {
  return summaryPage(db, scan, journeyListStatement(scan, text, common));
}

export function selectSearchPage(db: Queryable, scan: JourneyScan, tokens: string[], looseTokens: string[] = []): Promise<SummaryPage> {
  return summaryPage(db, scan, searchStatement(scan, tokens, looseTokens));
}

/** Journeys counted per (bucket of lastEventAt, status) for the interface's activity chart. */
export interface ActivityCount {
  bucket: number;
  status: string;
  count: number;
}

/**
 * Counts the journeys a list of the same filters would show, by bucket of lastEventAt
 * (floor((lastEventAt - since) / bucket), in microseconds) and status. The text filter is the
 * list's: the label or a displayable alias holds q.
 */
export async function selectJourneyActivity(
  db: Queryable,
  scan: JourneyScan & { sinceUs: bigint; untilUs: bigint },
  text: string | null,
  bucketUs: bigint,
  common: CommonTrigrams = NO_COMMON_TRIGRAMS,
): Promise<ActivityCount[]> {
  const params = new Params();
  let where = conditions(scan, params);
  if (text !== null) {
    const matches = textMatch(text, params, common);
    where += ` AND ((j.label IS NOT NULL AND ${matches('j.label', 'label')})
       OR EXISTS (SELECT 1 FROM journey_aliases a
                   WHERE a.project_id = j.project_id AND a.journey_id = j.id
                     AND a.display_value IS NOT NULL AND ${matches('a.display_value', 'alias')}))`;
  }
  const since = params.add(scan.sinceUs.toString());
  const bucket = params.add(bucketUs.toString());
  const sql = `SELECT ((${epochMicrosSql('j.last_event_at')})::int8 - ${since}::int8) / ${bucket}::int8 AS bucket, j.status, count(*)::int AS count
      FROM journeys j WHERE ${where} GROUP BY 1, 2`;
  const rows = (await db.query<{ bucket: string; status: string; count: number }>(sql, params.values)).rows;
  return rows.map((row) => ({ bucket: Number(row.bucket), status: row.status, count: row.count }));
}
