// Status changes of a problem (docs/problems.md, "Statuses"), each with its audit row in one
// transaction. A resolution records its time: the watermark a journey must pass (an event
// received after it) to reopen the problem, so a journey analysed late never does.

import { z } from 'zod';
import type { AuditActor } from '../audit/audit-log.ts';
import { writeAudit } from '../audit/audit-log.ts';
import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import { parseTimestamp } from '../protocol/timestamps.ts';

/** The most journeys an ignore can wait for. */
export const MAX_IGNORE_JOURNEYS = 1_000_000;
/** Recent journeys whose releases a resolution "in the next release" counts as already deployed. */
const CURRENT_RELEASE_JOURNEYS = 20;

const instant = z.string().refine((text) => parseTimestamp(text) !== null, 'must be a date and time with a time zone');

export const statusChangeSchema = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('open') }),
  z.strictObject({ status: z.literal('expected') }),
  z.strictObject({ status: z.literal('resolved'), inNextRelease: z.boolean().optional() }),
  z.strictObject({
    status: z.literal('ignored'),
    until: instant.optional(),
    moreJourneys: z.number().int().min(1).max(MAX_IGNORE_JOURNEYS).optional(),
  }),
]);
export type StatusChange = z.infer<typeof statusChangeSchema>;

/**
 * Sets the status; false when the project has no such problem. An ignore's `until` must be after
 * `now` (the caller checks it, to answer with the field's name).
 */
export async function setProblemStatus(pool: Pool, projectId: string, problemId: string, change: StatusChange, now: Date, actor: AuditActor): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const resolved = change.status === 'resolved';
    const nextRelease = resolved && change.inNextRelease === true;
    const ignored = change.status === 'ignored' ? change : null;
    const updated = await client.query(
      `UPDATE problems SET status = $3, status_changed_at = $4, journeys_since_status = 0,
              resolved_at = CASE WHEN $5 THEN $4::timestamptz END, resolved_next_release = $6,
              ignored_until = $7, ignored_more_journeys = $8, regressed_at = NULL, regressed_release = NULL, regressed_journey = NULL
        WHERE project_id = $1 AND id = $2`,
      [projectId, problemId, change.status, now, resolved, nextRelease, ignored?.until ?? null, ignored?.moreJourneys ?? null],
    );
    if (updated.rowCount === 0) return false;
    if (nextRelease) await recordCurrentReleases(client, projectId);
    await writeAudit(client, projectId, 'problem.status_changed', {
      problemId,
      status: change.status,
      ...(nextRelease ? { inNextRelease: true } : {}),
      ...(ignored?.until === undefined ? {} : { until: ignored.until }),
      ...(ignored?.moreJourneys === undefined ? {} : { moreJourneys: ignored.moreJourneys }),
    }, actor);
    return true;
  });
}

/**
 * The releases of the project's most recent journeys (their latest step's event) are known
 * releases from now on: a release already deployed when a fix is marked "in the next release"
 * is not the next one, even if no finding had named it yet.
 */
async function recordCurrentReleases(db: Queryable, projectId: string): Promise<void> {
  await db.query(
    `INSERT INTO project_releases (project_id, release, first_seen_at)
     SELECT $1, r.release, min(r.received_at) FROM (
       SELECT COALESCE(NULLIF(e.deployment_metadata->>'version', ''), NULLIF(e.deployment_metadata->>'gitCommit', '')) AS release, e.received_at
         FROM (SELECT last_step_event_id FROM journeys WHERE project_id = $1 AND last_step_event_id IS NOT NULL
                ORDER BY last_event_at DESC LIMIT ${CURRENT_RELEASE_JOURNEYS}) j
         JOIN event_ids i ON i.project_id = $1 AND i.id = j.last_step_event_id
         JOIN events e ON e.project_id = $1 AND e.id = i.id AND e.received_at = i.received_at) r
      WHERE r.release IS NOT NULL GROUP BY r.release
     ON CONFLICT (project_id, release) DO UPDATE SET first_seen_at = EXCLUDED.first_seen_at
      WHERE project_releases.first_seen_at > EXCLUDED.first_seen_at`,
    [projectId],
  );
}
