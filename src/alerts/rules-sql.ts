// SQL of alert rules and their evaluation against stored findings (migration 0008).

import type { Queryable } from '../db/pool.ts';
import { countRegressionWindows } from '../problems/regressions.ts';
import { findingProblemIdSql } from '../problems/silenced.ts';

export interface AlertRuleRecord {
  project_id: string;
  id: string;
  name: string;
  kind: string;
  path: string | null;
  entity_type: string | null;
  environment_id: string | null;
  environment: string | null;
  threshold_count: number;
  window_minutes: number;
  channel: 'webhook' | 'slack';
  url: string;
  secret_encrypted: string;
  muted_until: Date | null;
  state: 'ok' | 'firing';
  created_at: Date;
  /** End of the last window whose count was final when evaluated; null before the first pass. */
  evaluated_until: Date | null;
  /** The rule's state at evaluated_until. */
  evaluated_state: 'ok' | 'firing';
}

const COLUMNS = `r.project_id, r.id, r.name, r.kind, r.path, r.entity_type, r.environment_id, e.name AS environment, r.threshold_count,
  r.window_minutes, r.channel, r.url, r.secret_encrypted, r.muted_until, r.state, r.created_at,
  r.evaluated_until, r.evaluated_state`;
const FROM = `alert_rules r LEFT JOIN environments e ON e.project_id = r.project_id AND e.id = r.environment_id`;

export async function insertRule(db: Queryable, row: Omit<AlertRuleRecord, 'environment' | 'muted_until' | 'state' | 'created_at' | 'evaluated_until' | 'evaluated_state'>): Promise<void> {
  await db.query(
    `INSERT INTO alert_rules (project_id, id, name, kind, path, entity_type, environment_id, threshold_count, window_minutes, channel, url, secret_encrypted)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [row.project_id, row.id, row.name, row.kind, row.path, row.entity_type, row.environment_id, row.threshold_count, row.window_minutes, row.channel, row.url, row.secret_encrypted],
  );
}

export async function countRules(db: Queryable, projectId: string): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_rules WHERE project_id = $1', [projectId])).rows[0]!.n;
}

export async function selectRules(db: Queryable, projectId: string | null): Promise<AlertRuleRecord[]> {
  const result = await db.query<AlertRuleRecord>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE ($1::uuid IS NULL OR r.project_id = $1) ORDER BY r.created_at, r.id`,
    [projectId],
  );
  return result.rows;
}

export async function selectRule(db: Queryable, projectId: string, id: string): Promise<AlertRuleRecord | null> {
  const result = await db.query<AlertRuleRecord>(`SELECT ${COLUMNS} FROM ${FROM} WHERE r.project_id = $1 AND r.id = $2`, [projectId, id]);
  return result.rows[0] ?? null;
}

export async function updateMute(db: Queryable, projectId: string, id: string, mutedUntil: Date | null): Promise<boolean> {
  const result = await db.query('UPDATE alert_rules SET muted_until = $3 WHERE project_id = $1 AND id = $2', [projectId, id, mutedUntil]);
  return (result.rowCount ?? 0) === 1;
}

/** Writes what a rule watches and where it says so; its evaluation cursor and secret stay. */
export async function updateRuleFields(
  db: Queryable,
  row: Pick<AlertRuleRecord, 'project_id' | 'id' | 'name' | 'kind' | 'path' | 'entity_type' | 'environment_id' | 'threshold_count' | 'window_minutes' | 'channel' | 'url'>,
): Promise<boolean> {
  const result = await db.query(
    `UPDATE alert_rules SET name = $3, kind = $4, path = $5, entity_type = $6, environment_id = $7, threshold_count = $8, window_minutes = $9,
            channel = $10, url = $11
      WHERE project_id = $1 AND id = $2`,
    [row.project_id, row.id, row.name, row.kind, row.path, row.entity_type, row.environment_id, row.threshold_count, row.window_minutes, row.channel, row.url],
  );
  return (result.rowCount ?? 0) === 1;
}

export async function deleteRule(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const result = await db.query('DELETE FROM alert_rules WHERE project_id = $1 AND id = $2', [projectId, id]);
  return (result.rowCount ?? 0) === 1;
}

export interface RuleProgress {
  evaluated_until: Date | null;
  evaluated_state: 'ok' | 'firing';
  state: 'ok' | 'firing';
  muted_until: Date | null;
  created_at: Date;
}

/** The rule's evaluation cursor, locked until the transaction ends; null when it was deleted. */
export async function lockRuleProgress(db: Queryable, projectId: string, id: string): Promise<RuleProgress | null> {
  const result = await db.query<RuleProgress>(
    'SELECT evaluated_until, evaluated_state, state, muted_until, created_at FROM alert_rules WHERE project_id = $1 AND id = $2 FOR UPDATE',
    [projectId, id],
  );
  return result.rows[0] ?? null;
}

export async function saveRuleProgress(
  db: Queryable,
  rule: Pick<AlertRuleRecord, 'project_id' | 'id'>,
  progress: { evaluatedUntil: Date; evaluatedState: 'ok' | 'firing'; state: 'ok' | 'firing' },
): Promise<void> {
  await db.query('UPDATE alert_rules SET evaluated_until = $3, evaluated_state = $4, state = $5 WHERE project_id = $1 AND id = $2', [
    rule.project_id,
    rule.id,
    progress.evaluatedUntil,
    progress.evaluatedState,
    progress.state,
  ]);
}

/**
 * Findings of the rule first found in [from, to), counted per window of `sizeMs` starting at
 * `from`: only windows with any appear, keyed by their start in epoch milliseconds, each with its
 * first journeys. One statement however many windows a catch-up spans. A journey's row holds a
 * finding first found in the range only if its latest is at or after `from`.
 */
export async function countWindows(
  db: Queryable,
  rule: Pick<AlertRuleRecord, 'project_id' | 'kind' | 'path' | 'entity_type' | 'environment_id'>,
  range: { from: Date; to: Date; sizeMs: number },
  maxJourneys: number,
  /** Findings of these problems are not counted (expected and ignored problems, src/problems/silenced.ts). */
  silenced: readonly string[] = [],
): Promise<Map<number, { count: number; journeys: string[] }>> {
  // A regression rule counts problems that came back, not findings.
  if (rule.kind === 'regression') return countRegressionWindows(db, rule, range, maxJourneys);
  const result = await db.query<{ slot: string; count: number; journeys: string[] | null }>(
    `SELECT floor((extract(epoch FROM u.first_found_at) - extract(epoch FROM $3::timestamptz)) * 1000 / $9)::bigint AS slot,
            count(*)::int AS count, (array_agg(DISTINCT f.journey_id))[1:$8] AS journeys
       FROM journey_findings f, unnest(f.kind, f.path, f.first_found_at, f.step_at, f.from_at, f.in_transit) AS u(kind, path, first_found_at, step_at, from_at, in_transit)
      WHERE f.project_id = $1 AND f.last_found_at >= $3 AND $2 = ANY (f.kind)
        AND u.kind = $2 AND u.first_found_at >= $3 AND u.first_found_at < $4
        AND ($5::text IS NULL OR u.path = $5) AND ($6::text IS NULL OR f.entity_type = $6) AND ($7::uuid IS NULL OR f.environment_id = $7)
        ${silenced.length === 0 ? '' : `AND ${findingProblemIdSql('f', 'u')} <> ALL ($10::uuid[])`}
      GROUP BY slot`,
    [rule.project_id, rule.kind, range.from, range.to, rule.path, rule.entity_type, rule.environment_id, maxJourneys, range.sizeMs, ...(silenced.length === 0 ? [] : [silenced])],
  );
  const from = range.from.getTime();
  return new Map(result.rows.map((row) => [from + Number(row.slot) * range.sizeMs, { count: row.count, journeys: row.journeys ?? [] }]));
}

/** Findings of the rule first found in [from, to): how many, and the first journeys. */
export async function countMatches(
  db: Queryable,
  rule: Pick<AlertRuleRecord, 'project_id' | 'kind' | 'path' | 'entity_type' | 'environment_id'>,
  from: Date,
  to: Date,
  maxJourneys: number,
  silenced: readonly string[] = [],
): Promise<{ count: number; journeys: string[] }> {
  const windows = await countWindows(db, rule, { from, to, sizeMs: to.getTime() - from.getTime() }, maxJourneys, silenced);
  return windows.get(from.getTime()) ?? { count: 0, journeys: [] };
}
