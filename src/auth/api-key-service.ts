import { CLI_ACTOR, writeAudit, type AuditActor } from '../audit/audit-log.ts';
import { recordSettingsChange } from '../audit/settings-history.ts';
import { generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { AppError } from '../http/errors.ts';
import { ensureEnvironment, findEnvironment } from '../projects/environments-sql.ts';
import { findProjectById, findProjectBySlug } from '../projects/projects-sql.ts';
import { supersedingKeyId } from '../rotation/key-mismatch.ts';
import { insertApiKey, revokeApiKey } from './api-keys-sql.ts';

/** The key list of `keys:list`: the SQL read is the whole operation. */
export { listApiKeys } from './api-keys-sql.ts';

export const MAX_ENVIRONMENT_NAME_LENGTH = 64;
/** The api_keys.name CHECK: 1 to 200 characters. */
export const MAX_API_KEY_NAME_LENGTH = 200;

export class NotFoundError extends Error {}

export interface CreatedApiKey {
  apiKey: string;
  keyPrefix: string;
  projectSlug: string;
  environmentName: string;
}

interface KeyInput {
  environmentName: string;
  name: string;
  defaultRetentionDays: number;
}

/**
 * Creates the environment when needed (with the default retention) and a key for it; the
 * audit row commits with the key. The secret is returned once and never stored.
 */
export async function createApiKey(
  pool: Pool,
  keyring: Keyring,
  input: KeyInput & { projectSlug: string },
  actor: AuditActor = CLI_ACTOR,
): Promise<CreatedApiKey> {
  const project = await findProjectBySlug(pool, input.projectSlug);
  if (project === null) throw new NotFoundError(`no project with the slug ${input.projectSlug}`);
  return issueApiKey(pool, keyring, project, input, actor);
}

/**
 * The same as createApiKey for a project named by id (the Settings route). An environment it
 * makes is recorded in the settings history, as the Environments page's own creation is;
 * key:create keeps doing what it did.
 */
export async function createProjectApiKey(
  pool: Pool,
  keyring: Keyring,
  input: KeyInput & { projectId: string },
  actor: AuditActor,
): Promise<CreatedApiKey> {
  // A process on a rotated-away key would hash the key under the outgoing pepper: the new key
  // would answer 401 everywhere else (key:create refuses the same way).
  if ((await supersedingKeyId(pool, keyring)) !== null) {
    throw new AppError('key_superseded', 'This server runs on an encryption key that a rotation replaced; restart it with the new ENCRYPTION_KEY.');
  }
  const project = await findProjectById(pool, input.projectId);
  if (project === null) throw new NotFoundError('no such project');
  return issueApiKey(pool, keyring, project, input, actor);
}

async function issueApiKey(
  pool: Pool,
  keyring: Keyring,
  project: { id: string; slug: string },
  input: KeyInput,
  actor: AuditActor,
): Promise<CreatedApiKey> {
  // Prefixes carry 48 random bits; on the rare collision with an existing prefix, draw again.
  let generated = generateApiKey();
  for (let attempt = 1; ; attempt++) {
    try {
      await withTransaction(pool, async (client) => {
        const existing = await findEnvironment(client, project.id, input.environmentName);
        const environment = existing ?? (await ensureEnvironment(client, project.id, input.environmentName, input.defaultRetentionDays));
        if (existing === null) {
          // A new environment is a settings change: it goes to the history, never to audit_log.
          const after = {
            captureMode: environment.captureMode,
            retentionDays: environment.retentionDays,
            redactionPaths: environment.redactionPaths,
            captureAllowlist: environment.captureAllowlist,
          };
          await recordSettingsChange(client, project.id, { action: 'environment.created', subject: environment.name, before: null, after }, actor);
        }
        await insertApiKey(client, {
          projectId: project.id,
          environmentId: environment.id,
          name: input.name,
          prefix: generated.prefix,
          stored: hashApiKey(keyring, generated.secret, 'current'),
          createdBy: actor,
        });
        await writeAudit(client, project.id, 'api_key.created', { keyPrefix: generated.prefix }, actor);
      });
      break;
    } catch (error) {
      const prefixTaken = (error as { constraint?: string }).constraint === 'api_keys_prefix_key';
      if (!prefixTaken || attempt >= 3) throw error;
      generated = generateApiKey();
    }
  }
  return {
    apiKey: generated.secret,
    keyPrefix: generated.prefix,
    projectSlug: project.slug,
    environmentName: input.environmentName,
  };
}

/** Revokes an active key by its prefix; false when no active key has it. */
export async function revokeApiKeyByPrefix(pool: Pool, prefix: string, actor: AuditActor = CLI_ACTOR): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const projectId = await revokeApiKey(client, prefix);
    if (projectId === null) return false;
    await writeAudit(client, projectId, 'api_key.revoked', { keyPrefix: prefix }, actor);
    return true;
  });
}
