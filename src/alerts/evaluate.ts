// Evaluation of one rule: every window from its cursor (the end of its last final window, stored
// in alert_rules) to the current one, so windows that passed while no pass ran (the dispatcher
// stopped, stalled, or another instance died holding the lock) are evaluated late rather than
// never. One transaction per rule with the rule's row locked: two evaluations of a rule never
// interleave, and the notifications, the state and the cursor commit together.

import { randomUUID } from 'node:crypto';
import { withTransaction, type Pool } from '../db/pool.ts';
import { ALERT_CATCH_UP_MS, ALERT_WINDOW_SETTLE_MS, MAX_ALERT_JOURNEYS } from './limits.ts';
import type { Notification } from './notification.ts';
import { enqueue } from './outbox-sql.ts';
import { countWindows, lockRuleProgress, saveRuleProgress, type AlertRuleRecord } from './rules-sql.ts';
import { walkWindows, windowStart } from './windows.ts';

export async function evaluateRule(pool: Pool, rule: AlertRuleRecord, at: Date): Promise<void> {
  await withTransaction(pool, async (client) => {
    const progress = await lockRuleProgress(client, rule.project_id, rule.id);
    if (progress === null) return;
    const size = rule.window_minutes * 60_000;
    const current = windowStart(at.getTime(), rule.window_minutes);
    // A rule with no cursor yet starts at the window it was made in.
    const cursor = progress.evaluated_until?.getTime() ?? windowStart(progress.created_at.getTime(), rule.window_minutes);
    if (progress.muted_until !== null && progress.muted_until > at) {
      // Muted: its windows pass without a notification, and are not caught up once it ends.
      await saveRuleProgress(client, rule, { evaluatedUntil: new Date(Math.max(cursor, current)), evaluatedState: progress.evaluated_state, state: progress.state });
      return;
    }
    // A cursor ahead of this clock (another instance's clock ran ahead) leaves only the current
    // window to look at, from the rule's latest state; older than the catch-up span is not walked.
    const ahead = cursor > current;
    const from = ahead ? current : Math.max(cursor, current - Math.floor(ALERT_CATCH_UP_MS / size) * size);
    const counts = await countWindows(client, rule, { from: new Date(from - size), to: new Date(current + size), sizeMs: size }, MAX_ALERT_JOURNEYS);
    const walk = walkWindows({
      from,
      current,
      sizeMs: size,
      threshold: rule.threshold_count,
      state: ahead ? progress.state : progress.evaluated_state,
      counts,
      settledEnd: at.getTime() - ALERT_WINDOW_SETTLE_MS,
    });
    for (const planned of walk.notifications) {
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
    await saveRuleProgress(client, rule, {
      evaluatedUntil: new Date(ahead ? cursor : walk.evaluatedUntil),
      evaluatedState: ahead ? progress.evaluated_state : walk.evaluatedState,
      state: walk.state,
    });
  });
}
