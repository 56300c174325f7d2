// The wrong-key guard. A process on another ENCRYPTION_KEY than the data's sees nothing: an
// erasure deletes 0 journeys and reports itself complete, key:create prints a key the server
// refuses, rotate:reencrypt would move data back. Two questions decide it, nothing decrypted:
//
// 1. Is this process's current key superseded? Key ids carry no order, so a process with a
//    previous key records "previous → current" in key_successions (at server start and before
//    every keyed CLI command); a process whose current key is listed there is on an outgoing key.
// 2. Is no movable value under a configured key? What a rotation moves (rotate:reencrypt):
//    entity ids, alias values and their tokens, search tokens, destination headers. Content
//    hashes never move (event-protocol 7) and an API key's hash moves only when the key next
//    authenticates (its secret is not stored), so neither says which key is in use: they count
//    only when no movable value is stored at all (an installation with API keys and no data).
//    Each question is an EXISTS that stops at the first row.

import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';

/** PostgreSQL's code for a missing table: the schema is not migrated yet. */
const UNDEFINED_TABLE = '42P01';

// Key id column (or expression) of every table holding values a rotation moves.
const MOVABLE_COLUMNS: ReadonlyArray<readonly [table: string, keyId: string]> = [
  ['search_tokens', 'key_id'],
  ['journeys', "split_part(entity_id_encrypted, '.', 2)"],
  ['journey_aliases', 'token_key_id'],
  ['journey_aliases', "split_part(value_encrypted, '.', 2)"],
  ['replay_destinations', "split_part(headers_encrypted, '.', 2)"],
];
// Keyed values that stay under the key that wrote them.
const UNMOVED_COLUMNS: ReadonlyArray<readonly [table: string, keyId: string]> = [
  ['api_keys', 'hash_key_id'],
  ['events', 'content_hash_key_id'],
];

async function anyUnderKeys(db: Queryable, columns: typeof MOVABLE_COLUMNS, keyIds: readonly string[]) {
  let stored = false;
  for (const [table, keyId] of columns) {
    const result = await db.query<{ any_row: boolean; readable: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${table}) AS any_row,
              EXISTS (SELECT 1 FROM ${table} WHERE ${keyId} = ANY($1::text[])) AS readable`,
      [keyIds],
    );
    const row = result.rows[0]!;
    if (row.readable) return { stored: true, readable: true };
    stored ||= row.any_row;
  }
  return { stored, readable: false };
}

/** True when keyed data is stored and not one value of it is under a configured key. */
export async function storedDataUnderOtherKeysOnly(db: Queryable, keyring: Keyring): Promise<boolean> {
  const keyIds = keyring.keyIds();
  const movable = await anyUnderKeys(db, MOVABLE_COLUMNS, keyIds);
  if (movable.stored) return !movable.readable;
  const unmoved = await anyUnderKeys(db, UNMOVED_COLUMNS, keyIds);
  return unmoved.stored && !unmoved.readable;
}

/**
 * Records that the current key supersedes the previous one (a no-op without a previous key), and
 * that the current key is superseded by nothing (a rotation back to an earlier key).
 */
export async function recordKeySuccession(db: Queryable, keyring: Keyring): Promise<void> {
  if (keyring.previousKeyId === null) return;
  await db
    .query(
      `WITH current_key AS (DELETE FROM key_successions WHERE key_id = $2)
       INSERT INTO key_successions (key_id, superseded_by) VALUES ($1, $2)
       ON CONFLICT (key_id) DO UPDATE SET superseded_by = EXCLUDED.superseded_by, superseded_at = now()
         WHERE key_successions.superseded_by <> EXCLUDED.superseded_by`,
      [keyring.previousKeyId, keyring.currentKeyId],
    )
    .catch((error: unknown) => {
      // A build ahead of `jtrace migrate`: nothing to record yet, and nothing to refuse.
      if ((error as { code?: unknown }).code !== UNDEFINED_TABLE) throw error;
    });
}

/** The id of the key that superseded this process's current key, or null (also before migration). */
export async function supersedingKeyId(db: Queryable, keyring: Keyring): Promise<string | null> {
  try {
    const result = await db.query<{ superseded_by: string }>('SELECT superseded_by FROM key_successions WHERE key_id = $1', [keyring.currentKeyId]);
    return result.rows[0]?.superseded_by ?? null;
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return null;
    throw error;
  }
}

/** How long a server trusts its last answer to "is my key superseded?" (ms): one query per interval. */
export const KEY_FRESHNESS_TTL_MS = 5_000;

export interface KeyFreshness {
  /** True once this process's current key is recorded as superseded (checked at most every TTL). */
  superseded(): Promise<boolean>;
}

/**
 * The server's cached form of supersedingKeyId, asked by every ingestion request: a process left
 * on an outgoing key stops writing (hashing, tokenizing, encrypting) under it within the TTL.
 * A failed query keeps the last answer: a database outage is reported by the request itself.
 */
export function createKeyFreshness(db: Queryable, keyring: Keyring, now: () => number = Date.now): KeyFreshness {
  let checkedAt = Number.NEGATIVE_INFINITY;
  let superseded = false;
  let pending: Promise<boolean> | null = null;
  const refresh = async (): Promise<boolean> => {
    try {
      superseded = (await supersedingKeyId(db, keyring)) !== null;
    } catch {
      // Keep the last answer.
    }
    checkedAt = now();
    pending = null;
    return superseded;
  };
  return {
    superseded() {
      if (now() - checkedAt < KEY_FRESHNESS_TTL_MS) return Promise.resolve(superseded);
      pending ??= refresh();
      return pending;
    },
  };
}

/**
 * True when a search for a value cannot reach every stored token: some search token or alias
 * token of the project is under a key this process does not have (newer or older). An erasure
 * run then reports itself incomplete.
 */
export async function tokensUnderUnconfiguredKeys(db: Queryable, keyring: Keyring, projectId: string): Promise<boolean> {
  const result = await db.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM search_tokens WHERE project_id = $1 AND NOT (key_id = ANY($2::text[])))
         OR EXISTS (SELECT 1 FROM journey_aliases WHERE project_id = $1 AND NOT (token_key_id = ANY($2::text[]))) AS found`,
    [projectId, keyring.keyIds()],
  );
  return result.rows[0]!.found;
}

/** The refusal line of a command run under the wrong key (names the variables, never a value). */
export const KEY_MISMATCH_MESSAGE =
  'stored data exists but none of it is under ENCRYPTION_KEY (or ENCRYPTION_KEY_PREVIOUS): this command would not see it; set ENCRYPTION_KEY to the key the server uses (jtrace doctor and rotate:status with that key show the state)';

/** The refusal of a process whose ENCRYPTION_KEY was rotated away (names the variables, never a value). */
export const KEY_SUPERSEDED_MESSAGE =
  'ENCRYPTION_KEY has been replaced by a newer key (a rotation moved stored data to it): this process would miss or write data under the outgoing key; set ENCRYPTION_KEY to the new key and ENCRYPTION_KEY_PREVIOUS to this one';
