import type { AuditActor } from '../audit/audit-log.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { LooseFormKind } from '../crypto/loose-forms.ts';
import { looseLookups, type LooseLookup } from '../crypto/loose-tokens.ts';
import { searchTokenForWrite, searchTokensForLookup } from '../crypto/search-tokens.ts';
import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import { AppError } from '../http/errors.ts';
import { normalizeIdentifier } from '../protocol/identifiers.ts';
import { findEnvironment } from '../projects/environments-sql.ts';
import { runAuditedBatches, type BatchHooks } from './audited-batches.ts';
import { databaseNow, deleteSnapshotBatch, liftStatementTimeout } from './deletion-sql.ts';
import type { ErasureRequest } from './erasure-input.ts';
import { DELETION_BATCH_SIZE, MAX_ERASURE_DRY_RUN_JOURNEYS } from './limits.ts';
import { countFormMatches, listErasureMatches, snapshotErasureMatches, type ErasureTokens, type MatchedJourney } from './match-sql.ts';
import { supersedingKeyId, tokensUnderUnconfiguredKeys } from '../rotation/key-mismatch.ts';

export interface ErasureDeps {
  pool: Pool;
  keyring: Keyring;
  /** Told the class of a failure that stopped a run part way (never its text, which may quote values). */
  onStoppedEarly?: (errorType: string) => void;
  /** Who erases (the erasure.completed row names them); the CLI when omitted. */
  actor?: AuditActor;
}

export interface ErasureDryRun {
  journeys: MatchedJourney[];
  total: number;
  /** With loose matching: how many journeys each form of the value finds (exact first). */
  forms?: ErasureFormCount[];
}

export interface ErasureFormCount {
  form: 'exact' | LooseFormKind;
  total: number;
}

export interface ErasureResult {
  deletedJourneys: number;
  deletedEvents: number;
  complete: boolean;
  /** Present when complete is false, or when matching journeys received events during the run and were left. */
  message?: string;
}

export const ERASURE_INCOMPLETE_MESSAGE = 'The erasure stopped part way; what is counted was deleted. Run the same erasure again to finish it.';

export const ERASURE_UNSEARCHABLE_MESSAGE =
  'Some stored identifiers are under an encryption key this process does not have, so the value could not be searched there; what is counted was deleted. Configure that key (ENCRYPTION_KEY_PREVIOUS) and run the same erasure again.';

/**
 * A process whose key was rotated away would search under the outgoing key only: it refuses
 * (503 key_superseded) rather than answer with what it alone can see.
 */
async function refuseSupersededKey(deps: ErasureDeps): Promise<void> {
  if ((await supersedingKeyId(deps.pool, deps.keyring)) !== null) {
    throw new AppError('key_superseded', 'This server runs on an encryption key that a rotation replaced; it cannot search every stored identifier. Restart it with the new ENCRYPTION_KEY.');
  }
}

/** A complete run that left journeys which received events while it ran (they changed after its start). */
export function erasureLeftMessage(left: number): string {
  const journeys = left === 1 ? '1 matching journey' : `${left} matching journeys`;
  return `${journeys} received events while the erasure ran and ${left === 1 ? 'was' : 'were'} left in place. Run the same erasure again to delete ${left === 1 ? 'it' : 'them'}.`;
}

async function environmentIdFor(db: Queryable, projectId: string, name: string | undefined): Promise<string | null> {
  if (name === undefined) return null;
  const environment = await findEnvironment(db, projectId, name);
  if (!environment) throw new AppError('environment_not_found', 'The project has no environment of that name.');
  return environment.id;
}

/**
 * Every key's token of the normalized value: a value indexed before a key rotation is still
 * found. match=loose adds the loose tokens of the value's e-mail or phone normal forms.
 */
function lookupTokens(keyring: Keyring, request: ErasureRequest): { tokens: ErasureTokens; forms: LooseLookup[] } {
  const exact = searchTokensForLookup(keyring, normalizeIdentifier(request.value)).map((token) => token.token);
  if (request.match !== 'loose') return { tokens: { exact, loose: null }, forms: [] };
  const forms = looseLookups(keyring, request.value);
  return { tokens: { exact, loose: forms.flatMap((form) => form.tokens) }, forms };
}

/** What an erasure would delete: at most 1,000, most recent first, and the full count. Writes nothing. */
export async function previewErasure(deps: ErasureDeps, projectId: string, request: ErasureRequest): Promise<ErasureDryRun> {
  await refuseSupersededKey(deps);
  const environmentId = await environmentIdFor(deps.pool, projectId, request.environment);
  const { tokens, forms } = lookupTokens(deps.keyring, request);
  const list = await listErasureMatches(deps.pool, projectId, tokens, environmentId, MAX_ERASURE_DRY_RUN_JOURNEYS);
  if (tokens.loose === null) return list;
  const counts: ErasureFormCount[] = [{ form: 'exact', total: await countFormMatches(deps.pool, projectId, { kind: 'exact', tokens: tokens.exact }, environmentId) }];
  for (const lookup of forms) {
    counts.push({ form: lookup.form.kind, total: await countFormMatches(deps.pool, projectId, { kind: 'loose', tokens: lookup.tokens }, environmentId) });
  }
  return { ...list, forms: counts };
}

/**
 * Erases every journey of the project whose entity id or an alias is the value. The journeys
 * (and their event counts) are read once when the run starts; a batch deletes only those that
 * still have that count, so a journey created or extended after the start is left alone
 * (docs/retention-and-deletion.md). One `erasure.completed` row follows the run.
 */
export async function eraseIdentifier(
  deps: ErasureDeps,
  projectId: string,
  request: ErasureRequest,
  hooks: BatchHooks = {},
): Promise<ErasureResult> {
  await refuseSupersededKey(deps);
  const environmentId = await environmentIdFor(deps.pool, projectId, request.environment);
  const { tokens } = lookupTokens(deps.keyring, request);
  const { snapshot, startedAt, searchable } = await withTransaction(deps.pool, async (client) => {
    await liftStatementTimeout(client);
    // Tokens under a key this process lacks (say a removed previous key whose data was never
    // moved) cannot match: the run deletes what it finds and never calls itself complete. It
    // reads the project's tokens, hence here, without the statement timeout.
    const searchable = !(await tokensUnderUnconfiguredKeys(client, deps.keyring, projectId));
    // now() is the transaction's start, so every journey of the snapshot was created no later.
    return { searchable, startedAt: await databaseNow(client), snapshot: await snapshotErasureMatches(client, projectId, tokens, environmentId) };
  });
  const batchSize = hooks.batchSize ?? DELETION_BATCH_SIZE;
  const batchCount = Math.max(1, Math.ceil(snapshot.ids.length / batchSize));
  let leftInPlace = 0;
  // The row names the value only by its token under the current key, never the value itself.
  const token = searchTokenForWrite(deps.keyring, normalizeIdentifier(request.value));
  const result = await runAuditedBatches(
    deps.pool,
    {
      projectId,
      action: 'erasure.completed',
      ...(deps.actor !== undefined ? { actor: deps.actor } : {}),
      details: (totals, complete) => ({
        searchToken: token.token,
        searchTokenKeyId: token.keyId,
        ...(request.environment !== undefined ? { environment: request.environment } : {}),
        ...(request.match === 'loose' ? { match: 'loose' } : {}),
        deletedJourneys: totals.journeys,
        deletedEvents: totals.events,
        complete: complete && searchable,
      }),
      deleteBatch: async (client, index) => {
        const from = index * batchSize;
        const batch = { ids: snapshot.ids.slice(from, from + batchSize), eventCounts: snapshot.eventCounts.slice(from, from + batchSize) };
        if (batch.ids.length === 0) return { deleted: { journeys: 0, events: 0 }, last: true };
        const { leftInPlace: left, ...deleted } = await deleteSnapshotBatch(client, projectId, batch, startedAt);
        // Only a complete run reports it; a failed batch ends the run with the incomplete message.
        leftInPlace += left;
        return { deleted, last: index + 1 >= batchCount };
      },
    },
    hooks,
  );
  const outcome = { deletedJourneys: result.totals.journeys, deletedEvents: result.totals.events, complete: result.complete && searchable };
  if (result.complete && !searchable) return { ...outcome, message: ERASURE_UNSEARCHABLE_MESSAGE };
  if (result.complete) return leftInPlace > 0 ? { ...outcome, message: erasureLeftMessage(leftInPlace) } : outcome;
  deps.onStoppedEarly?.(result.error instanceof Error ? result.error.name : 'error');
  return { ...outcome, message: ERASURE_INCOMPLETE_MESSAGE };
}
