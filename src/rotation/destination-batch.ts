// One rotation batch of replay destinations: their header values are one encrypted JSON
// object each, re-encrypted as a whole. Same keyset walk as the journey batches.

import { reencryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { withTransaction, type Pool } from '../db/pool.ts';

export interface DestinationCursor {
  projectId: string;
  id: string;
}

/** Sorts before every real row: destination ids are random uuids, never the nil uuid. */
export const START_DESTINATION_CURSOR: DestinationCursor = {
  projectId: '00000000-0000-0000-0000-000000000000',
  id: '00000000-0000-0000-0000-000000000000',
};

export interface DestinationBatchResult {
  destinations: number;
  next: DestinationCursor | null;
  moved: number;
  unmovable: number;
}

export async function reencryptDestinationBatch(
  pool: Pool,
  keyring: Keyring,
  cursor: DestinationCursor,
  batchSize: number,
): Promise<DestinationBatchResult> {
  const previousKeyId = keyring.previousKeyId;
  if (previousKeyId === null) throw new Error('rotation needs a previous key');
  return withTransaction(pool, async (client) => {
    await client.query('SET LOCAL statement_timeout = 0');
    const rows = await client.query<{ projectId: string; id: string; headersEncrypted: string }>(
      `SELECT project_id AS "projectId", id, headers_encrypted AS "headersEncrypted"
         FROM replay_destinations
        WHERE (project_id, id) > ($1::uuid, $2::uuid) AND split_part(headers_encrypted, '.', 2) = $3
        ORDER BY project_id, id LIMIT $4 FOR UPDATE`,
      [cursor.projectId, cursor.id, previousKeyId, batchSize],
    );
    const updates: Array<{ projectId: string; id: string; stored: string }> = [];
    let unmovable = 0;
    for (const row of rows.rows) {
      const result = reencryptField(keyring, row.headersEncrypted);
      if (result.status === 'reencrypted') updates.push({ projectId: row.projectId, id: row.id, stored: result.stored });
      else if (result.status === 'unreadable') unmovable++;
    }
    const written = await client.query(
      `UPDATE replay_destinations d SET headers_encrypted = u.stored
         FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS u(project_id, id, stored)
        WHERE d.project_id = u.project_id AND d.id = u.id`,
      [updates.map((u) => u.projectId), updates.map((u) => u.id), updates.map((u) => u.stored)],
    );
    const last = rows.rows.at(-1);
    return {
      destinations: rows.rows.length,
      next: rows.rows.length < batchSize || last === undefined ? null : { projectId: last.projectId, id: last.id },
      moved: written.rowCount ?? 0,
      unmovable,
    };
  });
}
