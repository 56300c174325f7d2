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
import type { AlertRuleInput, AlertRulePatch } from './rule-input.ts';
import { countRules, deleteRule, insertRule, selectRule, selectRules, updateMute, updateRuleFields, type AlertRuleRecord } from './rules-sql.ts';
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

/** The channel URL as stored, when its shape and host are allowed. */
function checkedUrl(deps: RulesDeps, raw: string): string {
  const url = normalizeBaseUrl(raw);
  if (!url.ok) throw errors.invalidRequest('channel.url', `The URL ${url.message}.`);
  if (!isHostAllowed(new URL(url.value).hostname, deps.allowedHosts)) {
    throw errors.invalidRequest('channel.url', 'The host is not in ALERT_ALLOWED_HOSTS.');
  }
  return url.value;
}

async function environmentIdOf(db: Queryable, projectId: string, name: string | null): Promise<string | null> {
  if (name === null) return null;
  const environment = await findEnvironment(db, projectId, name);
  if (environment === null) throw new AppError('environment_not_found', 'The project has no such environment.');
  return environment.id;
}

/** Creates a rule; the answer holds the signing secret, which is never shown again. */
export async function createRule(deps: RulesDeps, projectId: string, input: AlertRuleInput): Promise<RuleView & { secret: string }> {
  const url = checkedUrl(deps, input.channel.url);
  const environmentId = await environmentIdOf(deps.db, projectId, input.environment);
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
    url,
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

/**
 * Changes a rule's fields with the checks of creation; omitted fields keep their value. The
 * evaluation cursor stays, so the changed rule counts findings from where the old one stopped.
 */
export async function editRule(deps: RulesDeps, projectId: string, ruleId: string, patch: Omit<AlertRulePatch, 'mutedUntil'>): Promise<RuleView | null> {
  if (!known(ruleId)) return null;
  const id = ruleId.toLowerCase();
  const current = await selectRule(deps.db, projectId, id);
  if (current === null) return null;
  const fields = {
    project_id: projectId,
    id,
    name: patch.name ?? current.name,
    kind: patch.kind ?? current.kind,
    path: patch.path === undefined ? current.path : patch.path,
    entity_type: patch.entityType === undefined ? current.entity_type : patch.entityType,
    environment_id: patch.environment === undefined ? current.environment_id : await environmentIdOf(deps.db, projectId, patch.environment),
    threshold_count: patch.threshold?.count ?? current.threshold_count,
    window_minutes: patch.threshold?.windowMinutes ?? current.window_minutes,
    channel: patch.channel?.type ?? current.channel,
    url: patch.channel === undefined ? current.url : checkedUrl(deps, patch.channel.url),
  };
  if (!(await updateRuleFields(deps.db, fields))) return null;
  return ruleView((await selectRule(deps.db, projectId, id))!);
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
