import { CLI_ACTOR, writeAudit } from '../audit/audit-log.ts';
import { generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { ensureEnvironment } from '../projects/environments-sql.ts';
import { findProjectBySlug } from '../projects/projects-sql.ts';
import { insertApiKey, revokeApiKey } from './api-keys-sql.ts';

/** The key list of `keys:list`: the SQL read is the whole operation. */
export { listApiKeys } from './api-keys-sql.ts';

export const MAX_ENVIRONMENT_NAME_LENGTH = 64;

export class NotFoundError extends Error {}

export interface CreatedApiKey {
  apiKey: string;
  keyPrefix: string;
  projectSlug: string;
  environmentName: string;
}

/**
 * Creates the environment when needed (with the default retention) and a key for it; the
 * audit row commits with the key. The secret is returned once and never stored.
 */
export async function createApiKey(
  pool: Pool,
  keyring: Keyring,
  input: { projectSlug: string; environmentName: string; name: string; defaultRetentionDays: number },
): Promise<CreatedApiKey> {
  const project = await findProjectBySlug(pool, input.projectSlug);
  if (project === null) throw new NotFoundError(`no project with the slug ${input.projectSlug}`);
  // Prefixes carry 48 random bits; on the rare collision with an existing prefix, draw again.
  let generated = generateApiKey();
  for (let attempt = 1; ; attempt++) {
    try {
      await withTransaction(pool, async (client) => {
        const environment = await ensureEnvironment(client, project.id, input.environmentName, input.defaultRetentionDays);
        await insertApiKey(client, {
          projectId: project.id,
          environmentId: environment.id,
          name: input.name,
          prefix: generated.prefix,
          stored: hashApiKey(keyring, generated.secret, 'current'),
        });
        await writeAudit(client, project.id, 'api_key.created', { keyPrefix: generated.prefix }, CLI_ACTOR);
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
export async function revokeApiKeyByPrefix(pool: Pool, prefix: string): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const projectId = await revokeApiKey(client, prefix);
    if (projectId === null) return false;
    await writeAudit(client, projectId, 'api_key.revoked', { keyPrefix: prefix }, CLI_ACTOR);
    return true;
  });
}
