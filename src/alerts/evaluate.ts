// Evaluation of one rule: every window from its cursor (the end of its last final window, stored
// in alert_rules) to the current one, so windows that passed while no pass ran (the dispatcher
// stopped, stalled, or another instance died holding the lock) are evaluated late rather than
// never. What to write is planned from the rule as the pass read it, with one read of the counts;
// only when there is something to write does a transaction lock the rule's row, plan again if
// the row moved meanwhile, and commit the notifications, the state and the cursor together, so
// two evaluations of a rule never interleave.

import { randomUUID } from 'node:crypto';
import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import { selectSilencedProblemIds } from '../problems/silenced.ts';
import { ALERT_CATCH_UP_MS, ALERT_WINDOW_SETTLE_MS, MAX_ALERT_JOURNEYS } from './limits.ts';
import type { Notification } from './notification.ts';
import { enqueue, selectQueued } from './outbox-sql.ts';
import { countWindows, lockRuleProgress, saveRuleProgress, type AlertRuleRecord, type RuleProgress } from './rules-sql.ts';
import { walkWindows, windowStart, type PlannedNotification, type RuleState } from './windows.ts';

interface Plan {
  notifications: PlannedNotification[];
  /** The progress to store, or null when it stays as it is. */
  progress: { evaluatedUntil: Date; evaluatedState: RuleState; state: RuleState } | null;
}

async function plan(db: Queryable, rule: AlertRuleRecord, progress: RuleProgress, at: Date): Promise<Plan> {
  const size = rule.window_minutes * 60_000;
  const current = windowStart(at.getTime(), rule.window_minutes);
  // A rule with no cursor yet starts at the window it was made in.
  const cursor = progress.evaluated_until?.getTime() ?? windowStart(progress.created_at.getTime(), rule.window_minutes);
  const unchanged = (until: number, evaluatedState: RuleState, state: RuleState) =>
    until === progress.evaluated_until?.getTime() && evaluatedState === progress.evaluated_state && state === progress.state;
  if (progress.muted_until !== null && progress.muted_until > at) {
    // Muted: its windows pass without a notification, and are not caught up once it ends.
    const until = Math.max(cursor, current);
    return { notifications: [], progress: unchanged(until, progress.evaluated_state, progress.state) ? null : { evaluatedUntil: new Date(until), evaluatedState: progress.evaluated_state, state: progress.state } };
  }
  // A cursor ahead of this clock (another instance's clock ran ahead) leaves only the current
  // window to look at, from the rule's latest state; older than the catch-up span is not walked.
  const ahead = cursor > current;
  const from = ahead ? current : Math.max(cursor, current - Math.floor(ALERT_CATCH_UP_MS / size) * size);
  // Expected and ignored problems are alerted on by no rule.
  const silenced = await selectSilencedProblemIds(db, rule.project_id, at);
  const counts = await countWindows(db, rule, { from: new Date(from - size), to: new Date(current + size), sizeMs: size }, MAX_ALERT_JOURNEYS, silenced);
  const walk = walkWindows({
    from,
    current,
    sizeMs: size,
    threshold: rule.threshold_count,
    state: ahead ? progress.state : progress.evaluated_state,
    counts,
    settledEnd: at.getTime() - ALERT_WINDOW_SETTLE_MS,
  });
  // Queue only what is new, or pending with a count that moved (a pass sees the same windows
  // again until they settle).
  const queued = walk.notifications.length === 0 ? new Map() : await selectQueued(db, rule, new Date(from));
  const notifications = walk.notifications.filter((n) => {
    const known = queued.get(`${n.windowStart} ${n.notification}`);
    return known === undefined || (known.pending && (known.count !== n.count || known.windowComplete !== n.windowComplete));
  });
  const until = ahead ? cursor : walk.evaluatedUntil;
  const evaluatedState = ahead ? progress.evaluated_state : walk.evaluatedState;
  return {
    notifications,
    progress: unchanged(until, evaluatedState, walk.state) ? null : { evaluatedUntil: new Date(until), evaluatedState, state: walk.state },
  };
}

const sameProgress = (a: RuleProgress, b: RuleProgress) =>
  a.evaluated_until?.getTime() === b.evaluated_until?.getTime() && a.evaluated_state === b.evaluated_state && a.state === b.state && a.muted_until?.getTime() === b.muted_until?.getTime();

export async function evaluateRule(pool: Pool, rule: AlertRuleRecord, at: Date): Promise<void> {
  // Most passes find nothing to queue and nothing to move: one read, no transaction, no write.
  const first = await plan(pool, rule, rule, at);
  if (first.notifications.length === 0 && first.progress === null) return;
  await withTransaction(pool, async (client) => {
    const progress = await lockRuleProgress(client, rule.project_id, rule.id);
    if (progress === null) return;
    const { notifications, progress: next } = sameProgress(progress, rule) ? first : await plan(client, rule, progress, at);
    const size = rule.window_minutes * 60_000;
    for (const planned of notifications) {
      const body: Notification = {
        notification: planned.notification,
        rule: {
          id: rule.id, projectId: rule.project_id, name: rule.name, kind: rule.kind, path: rule.path, entityType: rule.entity_type,
          environment: rule.environment, threshold: { count: rule.threshold_count, windowMinutes: rule.window_minutes },
        },
        windowStart: new Date(planned.windowStart).toISOString(),
        windowEnd: new Date(planned.windowStart + size).toISOString(),
        count: planned.count,
        countedAt: at.toISOString(),
        windowComplete: planned.windowComplete,
        journeys: planned.journeys,
      };
      await enqueue(client, {
        projectId: rule.project_id, id: randomUUID(), ruleId: rule.id, windowStart: new Date(planned.windowStart), notification: planned.notification, body, now: at,
      });
    }
    if (next !== null) await saveRuleProgress(client, rule, next);
  });
}
