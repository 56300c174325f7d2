// Renaming and removing an environment, each recorded in the settings history in the same
// transaction as the other environment changes are (action environment.updated, the name or the
// whole environment as before/after). Removal is only for an environment nothing uses: its API
// keys would stop working and its journeys would go with it, so those block it.
import { recordSettingsChange } from '../audit/settings-history.ts';
import type { AuditActor } from '../audit/audit-log.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { lockEnvironment, type EnvironmentRow } from './environments-sql.ts';
import { environmentSettings } from './settings.ts';

const UNIQUE_VIOLATION = '23505';

/** The renamed environment; 'exists' when the project has one of the new name. */
export async function renameEnvironmentRecorded(pool: Pool, projectId: string, name: string, newName: string, actor: AuditActor): Promise<EnvironmentRow | 'not_found' | 'exists'> {
  try {
    return await withTransaction(pool, async (client) => {
      const before = await lockEnvironment(client, projectId, name);
      if (before === null) return 'not_found';
      if (newName === name) return before;
      await client.query('UPDATE environments SET name = $3 WHERE project_id = $1 AND id = $2', [projectId, before.id, newName]);
      await recordSettingsChange(client, projectId, { action: 'environment.updated', subject: newName, before: { name }, after: { name: newName } }, actor);
      return (await lockEnvironment(client, projectId, newName))!;
    });
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) return 'exists';
    throw error;
  }
}

/** What keeps an environment from being removed. */
export interface EnvironmentUse {
  apiKeys: number;
  journeys: number;
  alertRules: number;
}

/** Removes an environment nothing uses (revoked keys go with it); otherwise says what uses it. */
export async function removeEnvironmentRecorded(pool: Pool, projectId: string, name: string, actor: AuditActor): Promise<'removed' | 'not_found' | EnvironmentUse> {
  return withTransaction(pool, async (client) => {
    const environment = await lockEnvironment(client, projectId, name);
    if (environment === null) return 'not_found';
    const use = (
      await client.query<EnvironmentUse>(
        `SELECT (SELECT count(*)::int FROM api_keys WHERE project_id = $1 AND environment_id = $2 AND revoked_at IS NULL) AS "apiKeys",
                (SELECT count(*)::int FROM journeys WHERE project_id = $1 AND environment_id = $2) AS journeys,
                (SELECT count(*)::int FROM alert_rules WHERE project_id = $1 AND environment_id = $2) AS "alertRules"`,
        [projectId, environment.id],
      )
    ).rows[0]!;
    if (use.apiKeys > 0 || use.journeys > 0 || use.alertRules > 0) return use;
    await client.query('DELETE FROM environments WHERE project_id = $1 AND id = $2', [projectId, environment.id]);
    await recordSettingsChange(client, projectId, { action: 'environment.updated', subject: name, before: { name, ...environmentSettings(environment) }, after: null }, actor);
    return 'removed';
  });
}

const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "2 API keys and 340 journeys use it: revoke the keys and delete or let retention remove the data first." */
export function environmentUseMessage(use: EnvironmentUse): string {
  const parts = [
    use.apiKeys > 0 ? counted(use.apiKeys, 'API key', 'API keys') : null,
    use.journeys > 0 ? counted(use.journeys, 'journey', 'journeys') : null,
    use.alertRules > 0 ? counted(use.alertRules, 'alert rule', 'alert rules') : null,
  ].filter((p): p is string => p !== null);
  const subject = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  const total = use.apiKeys + use.journeys + use.alertRules;
  const steps = [
    use.apiKeys > 0 ? 'revoke the keys' : null,
    use.journeys > 0 ? 'delete or let retention remove the data' : null,
    use.alertRules > 0 ? 'delete or change the alert rules' : null,
  ].filter((s): s is string => s !== null);
  return `${subject} ${total === 1 ? 'uses' : 'use'} it: ${steps.join(' and ')} first.`;
}
