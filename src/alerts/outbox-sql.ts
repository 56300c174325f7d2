// SQL of the alert outbox and the delivery log (migration 0008).

import type { Queryable } from '../db/pool.ts';

/** Queues a notification unless this rule already has one for this window: returns whether it did. */
export async function enqueue(
  db: Queryable,
  row: { projectId: string; id: string; ruleId: string; windowStart: Date; notification: 'firing' | 'resolved'; body: unknown; now: Date },
): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO alert_outbox (project_id, id, rule_id, window_start, notification, body, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $7)
     ON CONFLICT (project_id, rule_id, window_start, notification) DO NOTHING`,
    [row.projectId, row.id, row.ruleId, row.windowStart, row.notification, JSON.stringify(row.body), row.now],
  );
  return (result.rowCount ?? 0) === 1;
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
}

export async function selectDue(db: Queryable, now: Date, limit: number): Promise<DueNotification[]> {
  const result = await db.query<DueNotification>(
    `SELECT o.project_id, o.id, o.rule_id, o.body, o.attempts, o.created_at, r.channel, r.url, r.secret_encrypted
       FROM alert_outbox o JOIN alert_rules r ON r.project_id = o.project_id AND r.id = o.rule_id
      WHERE o.status = 'pending' AND o.next_attempt_at <= $1
      ORDER BY o.next_attempt_at, o.id LIMIT $2`,
    [now, limit],
  );
  return result.rows;
}

export type Outcome = 'sent' | 'error_status' | 'failed' | 'blocked' | 'gave_up';

/** Records one attempt and moves the notification on: sent, retried at `retryAt`, or given up (retryAt null). */
export async function recordAttempt(
  db: Queryable,
  due: DueNotification,
  attempt: { outcome: Outcome; statusCode: number | null; error: string | null; now: Date; retryAt: Date | null },
): Promise<void> {
  const status = attempt.outcome === 'sent' ? 'sent' : attempt.retryAt === null ? 'failed' : 'pending';
  await db.query(
    `UPDATE alert_outbox SET attempts = attempts + 1, status = $3, next_attempt_at = COALESCE($4, next_attempt_at),
            sent_at = CASE WHEN $3 = 'sent' THEN $5::timestamptz ELSE sent_at END
      WHERE project_id = $1 AND id = $2`,
    [due.project_id, due.id, status, attempt.retryAt, attempt.now],
  );
  await db.query(
    `INSERT INTO alert_deliveries (project_id, outbox_id, rule_id, attempt, outcome, status_code, error, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [due.project_id, due.id, due.rule_id, due.attempts + 1, attempt.outcome, attempt.statusCode, attempt.error, attempt.now],
  );
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
