// Replay destinations: the capability functions the routes and the CLI share.

import { randomUUID } from 'node:crypto';
import { CLI_ACTOR, writeAudit, type AuditActor } from '../audit/audit-log.ts';
import { recordSettingsChange } from '../audit/settings-history.ts';
import { codePointLength, hasNul, isUuid } from '../protocol/identifiers.ts';
import { encryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import type { NewDestination } from './destination-input.ts';
import {
  deleteDestinationRow,
  deleteRunsOfDestination,
  findDestinationRow,
  insertDestination,
  listDestinationRows,
  setDestinationDisabledRow,
  type DestinationRow,
} from './destinations-sql.ts';
import { MAX_DESTINATION_ID_LENGTH } from './limits.ts';
import { AppError } from '../http/errors.ts';
import { supersedingKeyId } from '../rotation/key-mismatch.ts';

/** What every read shows of a destination: header names, never their values. */
export interface DestinationView {
  id: string;
  name: string;
  baseUrl: string;
  environmentType: string;
  headerNames: string[];
  disabled: boolean;
  createdAt: string;
}

export function destinationView(row: DestinationRow): DestinationView {
  return {
    id: row.id,
    name: row.name,
    baseUrl: row.base_url,
    environmentType: row.environment_type,
    headerNames: row.header_names,
    disabled: row.disabled,
    createdAt: formatTimestamp(row.created_at.getTime()),
  };
}

/** The destination and its audit row commit together; the audit row names it, never its URL. */
export async function createDestination(
  pool: Pool,
  keyring: Keyring,
  projectId: string,
  input: NewDestination,
  actor: AuditActor = CLI_ACTOR,
): Promise<DestinationView> {
  // A process on a rotated-away key would encrypt the headers under the outgoing key.
  if ((await supersedingKeyId(pool, keyring)) !== null) {
    throw new AppError('key_superseded', 'This server runs on an encryption key that a rotation replaced; restart it with the new ENCRYPTION_KEY.');
  }
  // All values as one encrypted JSON object: one ciphertext per destination, names kept apart.
  const headersEncrypted = encryptField(keyring, JSON.stringify(input.headers));
  return withTransaction(pool, async (client) => {
    const row = await insertDestination(client, projectId, {
      id: randomUUID(),
      name: input.name,
      base_url: input.baseUrl,
      environment_type: input.environmentType,
      headers_encrypted: headersEncrypted,
      header_names: Object.keys(input.headers),
    });
    await writeAudit(client, projectId, 'replay_destination.created', { destinationId: row.id, name: row.name }, actor);
    return destinationView(row);
  });
}

/**
 * The list; `withRunCounts` (the opt-in `include=runCount`) adds the replay runs sent to each,
 * which a delete removes with it. Without it every item has exactly the shape the spec fixes.
 */
export async function listDestinations(db: Queryable, projectId: string, withRunCounts = false): Promise<(DestinationView & { runCount?: number })[]> {
  const rows = await listDestinationRows(db, projectId);
  return rows.map((row) => (withRunCounts ? { ...destinationView(row), runCount: row.run_count } : destinationView(row)));
}

/**
 * Path ids of the delete route (section 4 table): NUL or over 512 characters is a bad request;
 * anything else that is not a uuid simply names no destination.
 */
/** One destination (batch replays check it before storing anything); null when unknown. */
export async function findDestination(db: Queryable, projectId: string, id: string): Promise<DestinationView | null> {
  const row = await findDestinationRow(db, projectId, id);
  return row === null ? null : destinationView(row);
}

export function classifyDestinationId(id: string): 'invalid' | 'unknown' | 'uuid' {
  if (hasNul(id) || codePointLength(id) > MAX_DESTINATION_ID_LENGTH) return 'invalid';
  return isUuid(id) ? 'uuid' : 'unknown';
}

export interface DeletedDestination {
  destinationId: string;
  name: string;
  runsDeleted: number;
}

/**
 * Deletes the destination and every run sent to it in one transaction with its audit row.
 * The statement timeout is lifted (section 8: deletions must not stop half way); the row lock
 * makes a replay finishing meanwhile wait and then fail its foreign key instead of orphaning.
 */
export async function deleteDestination(pool: Pool, projectId: string, id: string, actor: AuditActor = CLI_ACTOR): Promise<DeletedDestination | null> {
  if (!isUuid(id)) return null;
  return withTransaction(pool, async (client) => {
    await client.query('SET LOCAL statement_timeout = 0');
    const row = await findDestinationRow(client, projectId, id, true);
    if (row === null) return null;
    const runsDeleted = await deleteRunsOfDestination(client, projectId, row.id);
    await deleteDestinationRow(client, projectId, row.id);
    const deleted = { destinationId: row.id, name: row.name, runsDeleted };
    await writeAudit(client, projectId, 'replay_destination.deleted', { ...deleted }, actor);
    return deleted;
  });
}

/**
 * destination:disable / destination:enable and the PATCH route's `disabled`: no audit row
 * (section 6 lists none), a history row when the flag changes (none when it already held).
 */
export async function setDestinationDisabled(
  pool: Pool,
  projectId: string,
  id: string,
  disabled: boolean,
  actor: AuditActor = CLI_ACTOR,
): Promise<DestinationView | null> {
  if (!isUuid(id)) return null;
  return withTransaction(pool, async (client) => {
    const current = await findDestinationRow(client, projectId, id, true);
    if (current === null) return null;
    if (current.disabled === disabled) return destinationView(current);
    const row = (await setDestinationDisabledRow(client, projectId, id, disabled))!;
    await recordSettingsChange(
      client,
      projectId,
      { action: disabled ? 'replay_destination.disabled' : 'replay_destination.enabled', subject: row.id, before: { disabled: !disabled }, after: { disabled } },
      actor,
    );
    return destinationView(row);
  });
}
