// One rotation batch of journeys (interface-spec 8: 500 journeys per transaction): moves each
// journey's entity id, alias values and alias tokens, and its search tokens from the previous
// key to the current one, and the trace and span token columns of its events. A search token is
// a MAC of the normalized value, so re-keying it needs that value: entity ids and alias values
// are decrypted, journey ids and the trace, span, message and correlation ids are read in clear
// from journeys and events. A candidate value is matched to an old token row by recomputing
// the token under the previous key, so a token is only ever replaced by the token of the very
// value that made it; a token column is recomputed from the id in its own row.

import { decryptField, encryptField, fieldKeyId, reencryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { searchToken, searchTokenForWrite } from '../crypto/search-tokens.ts';
import { withTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import { normalizeIdentifier } from '../protocol/identifiers.ts';
import type { SearchTokenKind } from '../protocol/search-token-kinds.ts';
import { readJourneyBatch, writeJourneyBatch, type JourneyBatchRows, type JourneyWrites } from './journey-batch-sql.ts';

export interface Cursor {
  projectId: string;
  id: string;
}

/** Sorts before every real row: ids are at least one character long. */
export const START_CURSOR: Cursor = { projectId: '00000000-0000-0000-0000-000000000000', id: '' };

export interface JourneyCounts {
  entityIds: number;
  aliasValues: number;
  searchTokens: number;
}

export interface JourneyBatchResult {
  journeys: number;
  /** Where the next batch starts; null when this batch found the last candidates. */
  next: Cursor | null;
  moved: JourneyCounts;
  /** Under the previous key but unreadable (damaged) or not matched to any value: left as they are. */
  unmovable: JourneyCounts;
}

const zero = (): JourneyCounts => ({ entityIds: 0, aliasValues: 0, searchTokens: 0 });
const pairKey = (projectId: string, journeyId: string) => `${projectId}\u0000${journeyId}`;

interface Plan {
  writes: JourneyWrites;
  unmovable: JourneyCounts;
  /** Per journey, every plain value a search token of it may have been made from. */
  values: Map<string, Array<{ kind: SearchTokenKind; value: string }>>;
}

/** Entity ids and aliases to re-encrypt, and the plain values the token pass needs. */
function planValues(keyring: Keyring, previousKeyId: string, batch: JourneyBatchRows): Plan {
  const plan: Plan = { writes: { entities: [], aliases: [], oldTokens: [], newTokens: [], eventTokens: [] }, unmovable: zero(), values: new Map() };
  const addValue = (projectId: string, journeyId: string, kind: SearchTokenKind, value: string | null) => {
    if (value === null) return;
    const key = pairKey(projectId, journeyId);
    plan.values.set(key, [...(plan.values.get(key) ?? []), { kind, value }]);
  };
  for (const journey of batch.journeys) {
    addValue(journey.projectId, journey.id, 'journey_id', journey.id);
    addValue(journey.projectId, journey.id, 'entity_id', decryptField(keyring, journey.entityIdEncrypted));
    if (fieldKeyId(journey.entityIdEncrypted) !== previousKeyId) continue;
    const result = reencryptField(keyring, journey.entityIdEncrypted);
    if (result.status === 'reencrypted') plan.writes.entities.push({ projectId: journey.projectId, id: journey.id, stored: result.stored });
    else if (result.status === 'unreadable') plan.unmovable.entityIds++;
  }
  for (const alias of batch.aliases) {
    const plain = decryptField(keyring, alias.valueEncrypted);
    addValue(alias.projectId, alias.journeyId, 'alias', plain);
    const valueCurrent = fieldKeyId(alias.valueEncrypted) === keyring.currentKeyId;
    if (valueCurrent && alias.tokenKeyId === keyring.currentKeyId) continue;
    if (plain === null) {
      plan.unmovable.aliasValues++;
      continue;
    }
    plan.writes.aliases.push({
      projectId: alias.projectId,
      journeyId: alias.journeyId,
      id: alias.id,
      stored: valueCurrent ? alias.valueEncrypted : encryptField(keyring, plain),
      token: searchTokenForWrite(keyring, normalizeIdentifier(plain)).token,
    });
  }
  for (const event of batch.eventValues) addValue(event.projectId, event.journeyId, event.kind, event.value);
  // Token columns sit beside the clear id that made them: each is recomputed from its own row.
  for (const event of batch.tokenedEvents) {
    plan.writes.eventTokens.push({
      projectId: event.projectId,
      id: event.id,
      traceToken: currentToken(keyring, event.traceId),
      spanToken: currentToken(keyring, event.spanId),
    });
  }
  return plan;
}

function currentToken(keyring: Keyring, value: string | null): string | null {
  const normalized = value === null ? '' : normalizeIdentifier(value);
  return normalized === '' ? null : searchTokenForWrite(keyring, normalized).token;
}

/** Old tokens matched to a value by recomputing each candidate's token under the previous key. */
function planTokens(keyring: Keyring, batch: JourneyBatchRows, plan: Plan): void {
  const oldByJourney = new Map<string, Set<string>>();
  for (const token of batch.oldTokens) {
    const key = pairKey(token.projectId, token.journeyId);
    oldByJourney.set(key, (oldByJourney.get(key) ?? new Set<string>()).add(`${token.kind}\u0000${token.token}`));
  }
  for (const [key, old] of oldByJourney) {
    const [projectId, journeyId] = key.split('\u0000') as [string, string];
    for (const { kind, value } of plan.values.get(key) ?? []) {
      const normalized = normalizeIdentifier(value);
      const previousToken = searchToken(keyring, normalized, 'previous');
      if (!old.delete(`${kind}\u0000${previousToken}`)) continue;
      plan.writes.oldTokens.push({ projectId, journeyId, kind, token: previousToken });
      // Ingestion once indexed blank alias values; nothing can search for one, so it is dropped
      // rather than re-keyed (skipping it left it under the previous key for good).
      if (normalized === '') continue;
      plan.writes.newTokens.push({ projectId, journeyId, kind, token: searchTokenForWrite(keyring, normalized).token });
    }
    // Left: tokens of a value that cannot be read (or was never stored readable).
    plan.unmovable.searchTokens += old.size;
  }
}

export async function reencryptJourneyBatch(pool: Pool, keyring: Keyring, cursor: Cursor, batchSize: number): Promise<JourneyBatchResult> {
  const previousKeyId = keyring.previousKeyId;
  if (previousKeyId === null) throw new Error('rotation needs a previous key');
  return withTransaction(pool, async (client: PoolClient) => {
    // A batch decrypts and rewrites a few thousand rows: an API statement timeout would cut it.
    await client.query('SET LOCAL statement_timeout = 0');
    const batch = await readJourneyBatch(client, previousKeyId, cursor, batchSize);
    const plan = planValues(keyring, previousKeyId, batch);
    planTokens(keyring, batch, plan);
    const written = await writeJourneyBatch(client, keyring, plan.writes);
    // An alias whose new token already belongs to another row of the journey stays as it is.
    plan.unmovable.aliasValues += plan.writes.aliases.length - written.aliases;
    const last = batch.candidates.at(-1);
    return {
      journeys: batch.candidates.length,
      next: batch.candidates.length < batchSize || last === undefined ? null : { projectId: last.projectId, id: last.id },
      moved: { entityIds: written.entities, aliasValues: written.aliases, searchTokens: written.tokens },
      unmovable: plan.unmovable,
    };
  });
}
