// Changes of a project's and an environment's settings, each with its row in the settings
// history in the same transaction (src/audit/settings-history.ts). The routes and the CLI call
// these, so a change is recorded whichever way it is made. None writes an audit row: the spec
// fixes the audit actions, and a change of retention or capture settings is not one of them.
import { changedSettings, recordSettingsChange, type SettingsSnapshot } from '../audit/settings-history.ts';
import type { AuditActor } from '../audit/audit-log.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { insertEnvironment, lockEnvironment, updateEnvironment, type EnvironmentRow } from './environments-sql.ts';
import { createProject, findProjectBySlug, lockProject, renameProject, type ProjectRow } from './projects-sql.ts';
import type { EnvironmentChange } from './settings-input.ts';

const UNIQUE_VIOLATION = '23505';

/** Creates a project; 'slug_taken' when another project has the slug (also when one wins a race). */
export async function createProjectRecorded(pool: Pool, input: { slug: string; name: string }, actor: AuditActor): Promise<ProjectRow | 'slug_taken'> {
  if (await findProjectBySlug(pool, input.slug)) return 'slug_taken';
  try {
    return await withTransaction(pool, async (client) => {
      const project = await createProject(client, input.slug, input.name);
      await recordSettingsChange(client, project.id, { action: 'project.created', subject: project.slug, before: null, after: { slug: project.slug, name: project.name } }, actor);
      return project;
    });
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) return 'slug_taken';
    throw error;
  }
}

/** Renames a project; null when there is none. Renaming to the same name records nothing. */
export async function renameProjectRecorded(pool: Pool, projectId: string, name: string, actor: AuditActor): Promise<{ id: string; slug: string; name: string } | null> {
  return withTransaction(pool, async (client) => {
    const project = await lockProject(client, projectId);
    if (project === null) return null;
    if (project.name !== name) {
      await renameProject(client, projectId, name);
      await recordSettingsChange(client, projectId, { action: 'project.renamed', subject: project.slug, before: { name: project.name }, after: { name } }, actor);
    }
    return { ...project, name };
  });
}

export function environmentSettings(environment: EnvironmentRow): SettingsSnapshot {
  return {
    captureMode: environment.captureMode,
    retentionDays: environment.retentionDays,
    redactionPaths: environment.redactionPaths,
    captureAllowlist: environment.captureAllowlist,
  };
}

/** Creates an environment with its history row; 'exists' when the project has one of this name. */
export async function createEnvironmentRecorded(pool: Pool, projectId: string, name: string, retentionDays: number, actor: AuditActor): Promise<EnvironmentRow | 'exists'> {
  return withTransaction(pool, async (client) => {
    const created = await insertEnvironment(client, projectId, name, retentionDays);
    if (created === null) return 'exists';
    await recordSettingsChange(client, projectId, { action: 'environment.created', subject: name, before: null, after: environmentSettings(created) }, actor);
    return created;
  });
}

export type EnvironmentChangeOutcome = EnvironmentRow | 'not_found' | 'full_payload_not_allowed';

/**
 * Applies a change of an environment's settings and records what it changed (before and after
 * of the differing settings only). `allowFullPayloadCapture` is the server's flag: a change to
 * `full-payload` without it is refused; null (the CLI, which has no server flag to consult)
 * stores it, and ingestion then captures as `redacted-payload` (event protocol 5.3).
 */
export async function changeEnvironment(
  pool: Pool,
  projectId: string,
  name: string,
  change: EnvironmentChange,
  actor: AuditActor,
  allowFullPayloadCapture: boolean | null,
): Promise<EnvironmentChangeOutcome> {
  return withTransaction(pool, async (client) => {
    const before = await lockEnvironment(client, projectId, name);
    if (before === null) return 'not_found';
    if (allowFullPayloadCapture === false && change.captureMode === 'full-payload' && before.captureMode !== 'full-payload') {
      return 'full_payload_not_allowed';
    }
    const after = (await updateEnvironment(client, projectId, name, change))!;
    const changed = changedSettings(environmentSettings(before), environmentSettings(after));
    if (changed !== null) {
      await recordSettingsChange(client, projectId, { action: 'environment.updated', subject: name, ...changed }, actor);
    }
    return after;
  });
}

// Renaming and removing an environment, recorded as the other environment changes are (action
// environment.updated, the name or the whole environment as before/after). Removal is only for an
// environment nothing uses: its API keys would stop working and its journeys would go with it.

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
