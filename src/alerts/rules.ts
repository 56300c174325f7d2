// Alert rules as the routes and the CLI use them. A webhook's URL passes the replay capability's
// URL shape rules and must name a host of ALERT_ALLOWED_HOSTS; sending then goes through replay's
// sender (one pinned resolution, no redirects).

import { randomUUID } from 'node:crypto';
import { encryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError, errors } from '../http/errors.ts';
import { findEnvironment } from '../projects/environments-sql.ts';
import { isUuid } from '../protocol/identifiers.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { isHostAllowed, normalizeBaseUrl } from '../replay/url-policy.ts';
import { MAX_ALERT_RULES, MAX_DELIVERY_LOG } from './limits.ts';
import { selectDeliveries, type DeliveryRecord } from './outbox-sql.ts';
import type { AlertRuleInput } from './rule-input.ts';
import { countRules, deleteRule, insertRule, selectRule, selectRules, updateMute, type AlertRuleRecord } from './rules-sql.ts';
import { newAlertSecret } from './signing.ts';

export interface RulesDeps {
  db: Queryable;
  keyring: Keyring;
  allowedHosts: readonly string[];
}

export function ruleView(row: AlertRuleRecord) {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    path: row.path,
    entityType: row.entity_type,
    environment: row.environment,
    threshold: { count: row.threshold_count, windowMinutes: row.window_minutes },
    channel: { type: row.channel, url: row.url },
    mutedUntil: row.muted_until === null ? null : formatTimestamp(row.muted_until.getTime()),
    state: row.state,
    createdAt: formatTimestamp(row.created_at.getTime()),
  };
}

export type RuleView = ReturnType<typeof ruleView>;

/** Creates a rule; the answer holds the signing secret, which is never shown again. */
export async function createRule(deps: RulesDeps, projectId: string, input: AlertRuleInput): Promise<RuleView & { secret: string }> {
  const url = normalizeBaseUrl(input.channel.url);
  if (!url.ok) throw errors.invalidRequest('channel.url', `The URL ${url.message}.`);
  if (!isHostAllowed(new URL(url.value).hostname, deps.allowedHosts)) {
    throw errors.invalidRequest('channel.url', 'The host is not in ALERT_ALLOWED_HOSTS.');
  }
  let environmentId: string | null = null;
  if (input.environment !== null) {
    const environment = await findEnvironment(deps.db, projectId, input.environment);
    if (environment === null) throw new AppError('environment_not_found', 'The project has no such environment.');
    environmentId = environment.id;
  }
  if ((await countRules(deps.db, projectId)) >= MAX_ALERT_RULES) {
    throw errors.invalidRequest('', `A project holds at most ${MAX_ALERT_RULES} alert rules.`);
  }
  const secret = newAlertSecret();
  const id = randomUUID();
  await insertRule(deps.db, {
    project_id: projectId,
    id,
    name: input.name,
    kind: input.kind,
    path: input.path,
    entity_type: input.entityType,
    environment_id: environmentId,
    threshold_count: input.threshold.count,
    window_minutes: input.threshold.windowMinutes,
    channel: input.channel.type,
    url: url.value,
    secret_encrypted: encryptField(deps.keyring, secret),
  });
  return { ...ruleView((await selectRule(deps.db, projectId, id))!), secret };
}

export async function listRules(db: Queryable, projectId: string): Promise<RuleView[]> {
  return (await selectRules(db, projectId)).map(ruleView);
}

const known = (id: string) => isUuid(id);

export async function muteRule(db: Queryable, projectId: string, ruleId: string, until: Date | null): Promise<RuleView | null> {
  if (!known(ruleId) || !(await updateMute(db, projectId, ruleId.toLowerCase(), until))) return null;
  return ruleView((await selectRule(db, projectId, ruleId.toLowerCase()))!);
}

export async function removeRule(db: Queryable, projectId: string, ruleId: string): Promise<boolean> {
  return known(ruleId) && deleteRule(db, projectId, ruleId.toLowerCase());
}

export function deliveryView(row: DeliveryRecord) {
  return {
    notificationId: row.outbox_id,
    notification: row.notification,
    windowStart: formatTimestamp(row.window_start.getTime()),
    attempt: row.attempt,
    outcome: row.outcome,
    statusCode: row.status_code,
    error: row.error,
    at: formatTimestamp(row.created_at.getTime()),
  };
}

/** The delivery log of a rule, newest first; null when the rule is unknown. */
export async function listDeliveries(db: Queryable, projectId: string, ruleId: string) {
  if (!known(ruleId) || (await selectRule(db, projectId, ruleId.toLowerCase())) === null) return null;
  return (await selectDeliveries(db, projectId, ruleId.toLowerCase(), MAX_DELIVERY_LOG)).map(deliveryView);
}
