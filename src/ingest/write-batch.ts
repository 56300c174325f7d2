// What a batch writes, gathered in memory while its verdicts are decided (store.ts), and the
// statements that write it, in one order: journeys, aliases and tokens, then events.

import { encryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import {
  clearAliasDisplay,
  insertEvents,
  insertJourneysAliasesTokens,
  summaryRecord,
  updateJourneys,
  type EventRow,
  type NewAliasRow,
  type TokenRow,
} from './ingest-sql.ts';
import { compareCodePoints, type JourneyState } from './journey-summary.ts';

/** Thrown when a concurrent transaction created a journey or event first: retry the batch. */
export class ConcurrentWriteError extends Error {}

export interface StoreScope {
  projectId: string;
  environmentId: string;
}

export interface WorkingJourney {
  state: JourneyState;
  environmentId: string;
  isNew: boolean;
  changed: boolean;
  entityType: string;
  entityId: string;
}

export interface AliasSlot {
  /** Existing row id, or null until a new row is inserted. */
  id: number | null;
  ref: number;
  journeyId: string;
  type: string;
  /** The search token it is stored (or will be stored) under. */
  token: string;
  displayable: boolean;
}

/** What the batch will write, gathered in memory while verdicts are decided. */
export interface BatchPlan {
  journeys: Map<string, WorkingJourney>;
  /** Alias slots by slotKey(journey, type, token). */
  aliasSlots: Map<string, AliasSlot>;
  /** A stated alias value's tokens under every configured key, by normalized value: computed once per batch. */
  lookupTokens: Map<string, string[]>;
  /** Events accepted earlier in this batch, by id: a later copy is a duplicate or a conflict. */
  batchEvents: Map<string, { canonical: string }>;
  eventRows: Array<{ row: EventRow; slots: AliasSlot[] }>;
  tokens: TokenRow[];
  clearedAliasIds: Set<number>;
  newAliases: NewAliasRow[];
  nextRef: number;
}

/** Journeys, aliases and tokens first (events refer to journeys and list alias ids), then events. */
export async function writeBatch(db: Queryable, keyring: Keyring, scope: StoreScope, writes: BatchPlan): Promise<void> {
  // New journeys go in in id order, as existing ones are locked: two batches creating the same
  // journeys in different orders would otherwise deadlock (concurrency.int.test.ts).
  const created = [...writes.journeys].filter(([, j]) => j.isNew).sort(([a], [b]) => compareCodePoints(a, b));
  const newJourneyTokens: TokenRow[] = [];
  const storedJourneyTokens: TokenRow[] = [];
  const seen = new Set<string>(); // a value stated twice is indexed once (the first, as before)
  for (const token of writes.tokens) {
    const key = JSON.stringify([token.token, token.journey_id, token.kind]);
    if (seen.has(key)) continue;
    seen.add(key);
    (writes.journeys.get(token.journey_id)?.isNew ? newJourneyTokens : storedJourneyTokens).push(token);
  }
  const { journeysInserted, aliasIds } = await insertJourneysAliasesTokens(db, scope.projectId, {
    journeys: created.map(([id, j]) => ({
      ...summaryRecord(id, j.state),
      environment_id: j.environmentId,
      entity_type: j.entityType,
      entity_id_encrypted: encryptField(keyring, j.entityId),
    })),
    aliases: writes.newAliases,
    newJourneyTokens,
    storedJourneyTokens,
  });
  if (journeysInserted !== created.length) throw new ConcurrentWriteError('a journey was created concurrently');
  await updateJourneys(
    db,
    scope.projectId,
    [...writes.journeys].filter(([, j]) => !j.isNew && j.changed).map(([id, j]) => summaryRecord(id, j.state)),
  );
  await clearAliasDisplay(db, scope.projectId, [...writes.clearedAliasIds]);
  for (const { row, slots } of writes.eventRows) {
    row.stated_alias_ids = slots.map((slot) => slot.id ?? aliasIds.get(slot.ref)!);
  }
  await insertEvents(db, scope.projectId, writes.eventRows.map((e) => e.row));
}
