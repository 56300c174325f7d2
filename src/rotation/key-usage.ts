// Which encryption key each stored value is under, counted without decrypting anything: every
// encrypted value names its key id in clear (`v1.<keyId>.…`) and every token or hash row has a
// key id column, so one GROUP BY per table answers rotate:status, doctor and the start-up check.

import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';

/** What rotate:reencrypt moves (interface-spec 5), in the order rotate:status prints them. */
export const MOVABLE_KINDS = ['entityIds', 'aliasValues', 'searchTokens', 'destinationHeaders'] as const;
export type MovableKind = (typeof MOVABLE_KINDS)[number];

export const KIND_LABELS: Readonly<Record<MovableKind, string>> = {
  entityIds: 'entity ids',
  aliasValues: 'alias values',
  searchTokens: 'search tokens',
  destinationHeaders: 'destination headers',
};

/** Table label of `service_unreadable_values` for each kind (api_keys has its own line). */
export const KIND_TABLES: Readonly<Record<MovableKind, string>> = {
  entityIds: 'journeys',
  aliasValues: 'journey_aliases',
  searchTokens: 'search_tokens',
  destinationHeaders: 'replay_destinations',
};

export interface KeyStateCounts {
  current: number;
  previous: number;
  /** Under a key id that is not configured (or not a stored value at all). */
  unreadable: number;
}

export type KeyUsage = Record<MovableKind | 'apiKeys', KeyStateCounts>;

// Key id of an encrypted field; '' for a value that is not in the stored format, which then
// counts as unreadable like any other unknown key id.
const FIELD_KEY = (column: string) => `split_part(${column}, '.', 2)`;

// An alias row holds two keyed things, its value and its own token; it is under the current
// key only when both are. Revoked API keys never authenticate again, so they do not count.
const QUERIES: Readonly<Record<MovableKind | 'apiKeys', string>> = {
  entityIds: `SELECT ${FIELD_KEY('entity_id_encrypted')} AS k1, NULL AS k2, count(*) AS n FROM journeys GROUP BY 1`,
  aliasValues: `SELECT ${FIELD_KEY('value_encrypted')} AS k1, token_key_id AS k2, count(*) AS n FROM journey_aliases GROUP BY 1, 2`,
  searchTokens: `SELECT key_id AS k1, NULL AS k2, count(*) AS n FROM search_tokens GROUP BY 1`,
  destinationHeaders: `SELECT ${FIELD_KEY('headers_encrypted')} AS k1, NULL AS k2, count(*) AS n FROM replay_destinations GROUP BY 1`,
  apiKeys: `SELECT hash_key_id AS k1, NULL AS k2, count(*) AS n FROM api_keys WHERE revoked_at IS NULL GROUP BY 1`,
};

type KeyState = keyof KeyStateCounts;

function stateOf(keyring: Keyring, keyIds: Array<string | null>): KeyState {
  const roles = keyIds.filter((id): id is string => id !== null).map((id) => keyring.roleOf(id));
  if (roles.includes(null)) return 'unreadable';
  return roles.includes('previous') ? 'previous' : 'current';
}

async function countTable(db: Queryable, keyring: Keyring, sql: string): Promise<KeyStateCounts> {
  const counts: KeyStateCounts = { current: 0, previous: 0, unreadable: 0 };
  const result = await db.query<{ k1: string; k2: string | null; n: number }>(sql);
  for (const row of result.rows) counts[stateOf(keyring, [row.k1, row.k2])] += Number(row.n);
  return counts;
}

/** Counts per kind of what is under the current key, the previous key, and no configured key. */
export async function countKeyUsage(db: Queryable, keyring: Keyring): Promise<KeyUsage> {
  const usage = {} as KeyUsage;
  for (const kind of [...MOVABLE_KINDS, 'apiKeys'] as const) {
    usage[kind] = await countTable(db, keyring, QUERIES[kind]);
  }
  return usage;
}

/** Values no configured key can read, per table label of `service_unreadable_values`. */
export function unreadableByTable(usage: KeyUsage): Record<string, number> {
  const byTable: Record<string, number> = {};
  for (const kind of MOVABLE_KINDS) byTable[KIND_TABLES[kind]] = usage[kind].unreadable;
  byTable.api_keys = usage.apiKeys.unreadable;
  return byTable;
}

/** How many values rotate:reencrypt still has to move, or cannot (what rotate:status's exit status counts). */
export function notUnderCurrentKey(usage: KeyUsage): number {
  return MOVABLE_KINDS.reduce((sum, kind) => sum + usage[kind].previous + usage[kind].unreadable, 0);
}

/** Event content hashes per key state: never moved (event-protocol 7), reported for information. */
export async function countContentHashes(db: Queryable, keyring: Keyring): Promise<KeyStateCounts> {
  return countTable(db, keyring, 'SELECT content_hash_key_id AS k1, NULL AS k2, count(*) AS n FROM events GROUP BY 1');
}

export interface ApiKeyToWarn {
  prefix: string;
  projectSlug: string;
  environmentName: string;
  state: 'previous' | 'unreadable';
}

/** Active API keys whose hash is not under the current key: they answer 401 once their key is gone. */
export async function apiKeysNotUnderCurrentKey(db: Queryable, keyring: Keyring): Promise<ApiKeyToWarn[]> {
  const result = await db.query<{ prefix: string; slug: string; environment: string; hash_key_id: string }>(
    `SELECT k.prefix, p.slug, e.name AS environment, k.hash_key_id
       FROM api_keys k
       JOIN environments e ON e.project_id = k.project_id AND e.id = k.environment_id
       JOIN projects p ON p.id = k.project_id
      WHERE k.revoked_at IS NULL AND k.hash_key_id <> $1
      ORDER BY p.slug, e.name, k.prefix`,
    [keyring.currentKeyId],
  );
  return result.rows.map((row) => ({
    prefix: row.prefix,
    projectSlug: row.slug,
    environmentName: row.environment,
    state: keyring.roleOf(row.hash_key_id) === 'previous' ? 'previous' : 'unreadable',
  }));
}
