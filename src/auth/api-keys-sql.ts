import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/pool.ts';
import type { StoredApiKeyHash } from '../crypto/api-keys.ts';
import type { EnvironmentRow } from '../projects/environments-sql.ts';

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  environmentId: string;
  environmentName: string;
  prefix: string;
  hash: string;
  hashKeyId: string;
  revoked: boolean;
  /** Whether last use was recorded less than a minute ago, so no write is needed now. */
  recentlyUsed: boolean;
  /** The key's environment with its capture settings, read in the same statement for ingestion. */
  environment: EnvironmentRow;
}

export async function insertApiKey(
  db: Queryable,
  row: { projectId: string; environmentId: string; name: string; prefix: string; stored: StoredApiKeyHash },
): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO api_keys (project_id, id, environment_id, name, prefix, hash, hash_key_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [row.projectId, id, row.environmentId, row.name, row.prefix, row.stored.hash, row.stored.keyId],
  );
  return id;
}

export async function findApiKeyByPrefix(db: Queryable, prefix: string): Promise<ApiKeyRecord | null> {
  const result = await db.query<ApiKeyRecord>(
    `SELECT k.id, k.project_id AS "projectId", k.environment_id AS "environmentId", e.name AS "environmentName",
            k.prefix, k.hash, k.hash_key_id AS "hashKeyId", k.revoked_at IS NOT NULL AS revoked,
            COALESCE(k.last_used_at >= now() - interval '1 minute', false) AS "recentlyUsed",
            json_build_object('projectId', e.project_id, 'id', e.id, 'name', e.name, 'captureMode', e.capture_mode,
              'retentionDays', e.retention_days, 'redactionPaths', e.redaction_paths, 'captureAllowlist', e.capture_allowlist) AS environment
       FROM api_keys k JOIN environments e ON e.project_id = k.project_id AND e.id = k.environment_id
      WHERE k.prefix = $1`,
    [prefix],
  );
  return result.rows[0] ?? null;
}

/** A key verified under the previous encryption key moves to the current one (section 5). */
export async function rehashApiKey(db: Queryable, record: ApiKeyRecord, stored: StoredApiKeyHash): Promise<void> {
  await db.query(
    'UPDATE api_keys SET hash = $3, hash_key_id = $4 WHERE project_id = $1 AND id = $2 AND hash_key_id = $5',
    [record.projectId, record.id, stored.hash, stored.keyId, record.hashKeyId],
  );
}

/** Last use is recorded at most once a minute per key, keeping writes off the hot path. */
export async function touchApiKey(db: Queryable, record: ApiKeyRecord): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = now()
      WHERE project_id = $1 AND id = $2 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [record.projectId, record.id],
  );
}

export interface ApiKeyListing {
  prefix: string;
  name: string;
  projectSlug: string;
  environmentName: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  hashKeyId: string;
}

export async function listApiKeys(db: Queryable): Promise<ApiKeyListing[]> {
  const result = await db.query<ApiKeyListing>(
    `SELECT k.prefix, k.name, p.slug AS "projectSlug", e.name AS "environmentName", k.created_at AS "createdAt",
            k.last_used_at AS "lastUsedAt", k.revoked_at AS "revokedAt", k.hash_key_id AS "hashKeyId"
       FROM api_keys k
       JOIN environments e ON e.project_id = k.project_id AND e.id = k.environment_id
       JOIN projects p ON p.id = k.project_id
      ORDER BY p.slug, e.name, k.created_at`,
  );
  return result.rows;
}

/** Returns the project of the revoked key, or null when no active key has that prefix. */
export async function revokeApiKey(db: Queryable, prefix: string): Promise<string | null> {
  const result = await db.query<{ project_id: string }>(
    'UPDATE api_keys SET revoked_at = now() WHERE prefix = $1 AND revoked_at IS NULL RETURNING project_id',
    [prefix],
  );
  return result.rows[0]?.project_id ?? null;
}
