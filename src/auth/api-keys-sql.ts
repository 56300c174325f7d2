import { randomUUID } from 'node:crypto';
import type { AuditActor } from '../audit/audit-log.ts';
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
  row: { projectId: string; environmentId: string; name: string; prefix: string; stored: StoredApiKeyHash; createdBy: AuditActor },
): Promise<string> {
  const id = randomUUID();
  const by = row.createdBy;
  await db.query(
    `INSERT INTO api_keys (project_id, id, environment_id, name, prefix, hash, hash_key_id,
       created_by_kind, created_by_user_id, created_by_email, created_by_key_prefix)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      row.projectId, id, row.environmentId, row.name, row.prefix, row.stored.hash, row.stored.keyId,
      by.kind, by.kind === 'user' ? by.userId : null, by.kind === 'user' ? by.email : null, by.kind === 'api-key' ? by.keyPrefix : null,
    ],
  );
  return id;
}

const API_KEY_COLUMNS = `k.id, k.project_id AS "projectId", k.environment_id AS "environmentId", e.name AS "environmentName",
            k.prefix, k.hash, k.hash_key_id AS "hashKeyId", k.revoked_at IS NOT NULL AS revoked,
            COALESCE(k.last_used_at >= now() - interval '1 minute', false) AS "recentlyUsed",
            json_build_object('projectId', e.project_id, 'id', e.id, 'name', e.name, 'captureMode', e.capture_mode,
              'retentionDays', e.retention_days, 'redactionPaths', e.redaction_paths, 'captureAllowlist', e.capture_allowlist) AS environment`;

export async function findApiKeyByPrefix(db: Queryable, prefix: string): Promise<ApiKeyRecord | null> {
  const result = await db.query<ApiKeyRecord>(
    `SELECT ${API_KEY_COLUMNS}
       FROM api_keys k JOIN environments e ON e.project_id = k.project_id AND e.id = k.environment_id
      WHERE k.prefix = $1`,
    [prefix],
  );
  return result.rows[0] ?? null;
}

/** Several keys' rows in one statement (api-key-lookups.ts), by prefix; an unknown prefix is absent. */
export async function findApiKeysByPrefixes(db: Queryable, prefixes: string[]): Promise<Map<string, ApiKeyRecord>> {
  const result = await db.query<ApiKeyRecord>({
    name: 'api-keys-by-prefixes',
    text: `SELECT ${API_KEY_COLUMNS}
       FROM api_keys k JOIN environments e ON e.project_id = k.project_id AND e.id = k.environment_id
      WHERE k.prefix = ANY($1::text[])`,
    values: [prefixes],
  });
  return new Map(result.rows.map((row) => [row.prefix, row]));
}

/** A key verified under the previous encryption key moves to the current one (section 5). */
export async function rehashApiKey(db: Queryable, record: ApiKeyRecord, stored: StoredApiKeyHash): Promise<void> {
  await db.query(
    'UPDATE api_keys SET hash = $3, hash_key_id = $4 WHERE project_id = $1 AND id = $2 AND hash_key_id = $5',
    [record.projectId, record.id, stored.hash, stored.keyId, record.hashKeyId],
  );
}

/** Last use is recorded at most once a minute per key, keeping writes off the hot path. */
export async function touchApiKey(db: Queryable, record: Pick<ApiKeyRecord, 'projectId' | 'id'>): Promise<void> {
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

export interface ProjectApiKey {
  prefix: string;
  name: string;
  environmentName: string;
  createdBy: { kind: 'user' | 'admin-token' | 'api-key' | 'cli'; email: string | null; keyPrefix: string | null } | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** One project's keys for Settings, newest first: names and times only, never a hash. */
export async function listProjectApiKeys(db: Queryable, projectId: string, prefix?: string): Promise<ProjectApiKey[]> {
  const result = await db.query<{
    prefix: string; name: string; environment_name: string; created_by_kind: NonNullable<ProjectApiKey['createdBy']>['kind'] | null;
    created_by_email: string | null; created_by_key_prefix: string | null; created_at: Date; last_used_at: Date | null; revoked_at: Date | null;
  }>(
    `SELECT k.prefix, k.name, e.name AS environment_name, k.created_by_kind, k.created_by_email, k.created_by_key_prefix,
            k.created_at, k.last_used_at, k.revoked_at
       FROM api_keys k JOIN environments e ON e.project_id = k.project_id AND e.id = k.environment_id
      WHERE k.project_id = $1 AND ($2::text IS NULL OR k.prefix = $2)
      ORDER BY k.created_at DESC, k.prefix`,
    [projectId, prefix ?? null],
  );
  return result.rows.map((r) => ({
    prefix: r.prefix,
    name: r.name,
    environmentName: r.environment_name,
    createdBy: r.created_by_kind === null ? null : { kind: r.created_by_kind, email: r.created_by_email, keyPrefix: r.created_by_key_prefix },
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  }));
}

/** The project a key belongs to, revoked or not; null for an unknown prefix. */
export async function findApiKeyProject(db: Queryable, prefix: string): Promise<string | null> {
  const result = await db.query<{ project_id: string }>('SELECT project_id FROM api_keys WHERE prefix = $1', [prefix]);
  return result.rows[0]?.project_id ?? null;
}
