// A CLI command run with another ENCRYPTION_KEY than the data's sees nothing: an erasure deletes
// 0 journeys and reports itself complete, key:create prints a key the server refuses, and
// rotate:status advises revoking every working key. So every command that reads or writes keyed
// data first asks whether stored keyed data exists with none of it under a configured key.
// Each question is an EXISTS that stops at the first row, tables in the order of how often they
// hold data; nothing is decrypted.

import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';

// Key id column (or expression) of every table that holds keyed values.
const KEYED_COLUMNS: ReadonlyArray<readonly [table: string, keyId: string]> = [
  ['api_keys', 'hash_key_id'],
  ['search_tokens', 'key_id'],
  ['journeys', "split_part(entity_id_encrypted, '.', 2)"],
  ['journey_aliases', 'token_key_id'],
  ['events', 'content_hash_key_id'],
  ['replay_destinations', "split_part(headers_encrypted, '.', 2)"],
];

/** True when keyed data is stored and not one value of it is under a configured key. */
export async function storedDataUnderOtherKeysOnly(db: Queryable, keyring: Keyring): Promise<boolean> {
  const keyIds = [...keyring.keyIds()];
  let stored = false;
  for (const [table, keyId] of KEYED_COLUMNS) {
    const result = await db.query<{ any_row: boolean; readable: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${table}) AS any_row,
              EXISTS (SELECT 1 FROM ${table} WHERE ${keyId} = ANY($1::text[])) AS readable`,
      [keyIds],
    );
    const row = result.rows[0]!;
    if (row.readable) return false;
    stored ||= row.any_row;
  }
  return stored;
}

/** The refusal line of a command run under the wrong key (names the variables, never a value). */
export const KEY_MISMATCH_MESSAGE =
  'stored data exists but none of it is under ENCRYPTION_KEY (or ENCRYPTION_KEY_PREVIOUS): this command would not see it; set ENCRYPTION_KEY to the key the server uses (jtrace doctor and rotate:status with that key show the state)';
