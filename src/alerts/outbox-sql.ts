// SQL of the alert outbox and the delivery log (migration 0008).

import type { Queryable } from '../db/pool.ts';

/**
 * Queues a notification unless this rule already has one for this window. One still pending takes
 * the new body when its count changed (the window grew since it was queued), so a retry or a late
 * first send reports the window's count as of its latest evaluation; a sent one is never touched.
 */
export async function enqueue(
  db: Queryable,
  row: { projectId: string; id: string; ruleId: string; windowStart: Date; notification: 'firing' | 'resolved'; body: unknown; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO alert_outbox AS o (project_id, id, rule_id, window_start, notification, body, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $7)
     ON CONFLICT (project_id, rule_id, window_start, notification) DO UPDATE SET body = EXCLUDED.body
      WHERE o.status = 'pending' AND (o.body -> 'count' IS DISTINCT FROM EXCLUDED.body -> 'count'
        OR o.body -> 'windowComplete' IS DISTINCT FROM EXCLUDED.body -> 'windowComplete')`,
    [row.projectId, row.id, row.ruleId, row.windowStart, row.notification, JSON.stringify(row.body), row.now],
  );
}

/** A rule's queued notifications from `from` on, keyed `<window start ms> <notification>`, with what their bodies say. */
export async function selectQueued(
  db: Queryable,
  rule: { project_id: string; id: string },
  from: Date,
): Promise<Map<string, { pending: boolean; count: unknown; windowComplete: unknown }>> {
  const result = await db.query<{ window_start: Date; notification: string; pending: boolean; count: unknown; complete: unknown }>(
    `SELECT window_start, notification, status = 'pending' AS pending, body -> 'count' AS count, body -> 'windowComplete' AS complete
       FROM alert_outbox WHERE project_id = $1 AND rule_id = $2 AND window_start >= $3`,
    [rule.project_id, rule.id, from],
  );
  return new Map(result.rows.map((row) => [`${row.window_start.getTime()} ${row.notification}`, { pending: row.pending, count: row.count, windowComplete: row.complete }]));
}

export interface DueNotification {
  project_id: string;
  id: string;
  rule_id: string;
  body: unknown;
  attempts: number;
  created_at: Date;
  channel: 'webhook' | 'slack';
  url: string;
  secret_encrypted: string;
  /** Scheme, host and port of the URL: whom the per-receiver limit counts. */
  receiver: string;
}

/**
 * Due notifications, oldest first, at most `perReceiver` for each project and receiver: one
 * receiver's backlog cannot fill the list ahead of every other project's. A rule's notifications
 * go out one at a time in window order (a catch-up's firing before its resolved), so one waits
 * while an earlier one of its rule is pending.
 */
export async function selectDue(db: Queryable, now: Date, perReceiver: number, limit: number): Promise<DueNotification[]> {
  const result = await db.query<DueNotification>(
    `SELECT project_id, id, rule_id, body, attempts, created_at, channel, url, secret_encrypted, receiver FROM (
       SELECT o.project_id, o.id, o.rule_id, o.body, o.attempts, o.created_at, o.next_attempt_at, r.channel, r.url, r.secret_encrypted, h.receiver,
              row_number() OVER (PARTITION BY o.project_id, h.receiver ORDER BY o.next_attempt_at, o.id) AS nth
         FROM alert_outbox o JOIN alert_rules r ON r.project_id = o.project_id AND r.id = o.rule_id,
              LATERAL (SELECT lower(substring(r.url FROM '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*')) AS receiver) h
        WHERE o.status = 'pending' AND o.next_attempt_at <= $1
          AND NOT EXISTS (SELECT 1 FROM alert_outbox e
                           WHERE e.project_id = o.project_id AND e.rule_id = o.rule_id AND e.status = 'pending'
                             AND (e.window_start, e.created_at, e.id) < (o.window_start, o.created_at, o.id))) d
      WHERE d.nth <= $2
      ORDER BY next_attempt_at, id LIMIT $3`,
    [now, perReceiver, limit],
  );
  return result.rows;
}

/**
 * Claims due notifications for one send each: they stay pending but are not due again until
 * `until`, past the send's deadline, so no other pass or instance sends them meanwhile. Returns
 * the ids it claimed (another may have taken some first).
 */
export async function claimDue(db: Queryable, keys: Array<{ project_id: string; id: string }>, claim: string, now: Date, until: Date): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const result = await db.query<{ id: string }>(
    `UPDATE alert_outbox o SET claim = $3, next_attempt_at = $5
       FROM unnest($1::uuid[], $2::uuid[]) AS k(project_id, id)
      WHERE o.project_id = k.project_id AND o.id = k.id AND o.status = 'pending' AND o.next_attempt_at <= $4
      RETURNING o.id`,
    [keys.map((k) => k.project_id), keys.map((k) => k.id), claim, now, until],
  );
  return new Set(result.rows.map((row) => row.id));
}

export type Outcome = 'sent' | 'error_status' | 'failed' | 'blocked' | 'gave_up';

/**
 * Records one attempt and moves the notification on: sent, retried at `retryAt`, or given up
 * (retryAt null). Only under the claim the send was made with: a row deleted with its rule, or
 * claimed anew after this claim lapsed, is left alone. Returns whether it recorded.
 */
export async function recordAttempt(
  db: Queryable,
  due: DueNotification,
  claim: string,
  attempt: { outcome: Outcome; statusCode: number | null; error: string | null; now: Date; retryAt: Date | null },
): Promise<boolean> {
  const status = attempt.outcome === 'sent' ? 'sent' : attempt.retryAt === null ? 'failed' : 'pending';
  const result = await db.query(
    `WITH moved AS (
       UPDATE alert_outbox SET attempts = attempts + 1, status = $4, claim = NULL, next_attempt_at = COALESCE($5, next_attempt_at),
              sent_at = CASE WHEN $4 = 'sent' THEN $6::timestamptz ELSE sent_at END
        WHERE project_id = $1 AND id = $2 AND claim = $3
        RETURNING project_id, id, rule_id, attempts)
     INSERT INTO alert_deliveries (project_id, outbox_id, rule_id, attempt, outcome, status_code, error, created_at)
     SELECT project_id, id, rule_id, attempts, $7, $8, $9, $6 FROM moved`,
    [due.project_id, due.id, claim, status, attempt.retryAt, attempt.now, attempt.outcome, attempt.statusCode, attempt.error],
  );
  return (result.rowCount ?? 0) === 1;
}

export interface DeliveryRecord {
  outbox_id: string;
  attempt: number;
  outcome: Outcome;
  status_code: number | null;
  error: string | null;
  created_at: Date;
  notification: 'firing' | 'resolved';
  window_start: Date;
}

export async function selectDeliveries(db: Queryable, projectId: string, ruleId: string, limit: number): Promise<DeliveryRecord[]> {
  const result = await db.query<DeliveryRecord>(
    `SELECT d.outbox_id, d.attempt, d.outcome, d.status_code, d.error, d.created_at, o.notification, o.window_start
       FROM alert_deliveries d JOIN alert_outbox o ON o.project_id = d.project_id AND o.id = d.outbox_id
      WHERE d.project_id = $1 AND d.rule_id = $2 ORDER BY d.id DESC LIMIT $3`,
    [projectId, ruleId, limit],
  );
  return result.rows;
}
