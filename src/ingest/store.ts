import { contentHashMatches } from '../crypto/content-hash.ts';
import { encryptField } from '../crypto/field-encryption.ts';
import { aliasLooseTokensForWrite } from '../crypto/loose-tokens.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { searchTokenForWrite, searchTokensForLookup } from '../crypto/search-tokens.ts';
import type { Queryable } from '../db/pool.ts';
import { normalizeIdentifier } from '../protocol/identifiers.ts';
import { EVENT_FIELD_TOKEN_KINDS, EVENT_ROW_TOKEN_KINDS, type SearchTokenKind } from '../protocol/search-token-kinds.ts';
import { classifyEvent } from '../protocol/envelope.ts';
import { findAliases, lockJourneysFindEvents, type EventRow, type ExistingAlias, type ExistingEvent } from './ingest-sql.ts';
import { applyEvent, newJourneyState, type SummaryEvent } from './journey-summary.ts';
import { unstorableRefusal, type PreparedEvent, type Refusal } from './prepare.ts';
import { ConcurrentWriteError, writeBatch, type AliasSlot, type BatchPlan, type StoreScope, type WorkingJourney } from './write-batch.ts';

export { ConcurrentWriteError, type StoreScope };

export type StoreVerdict =
  | { status: 'accepted'; eventId: string; journeyId: string; duplicate: boolean }
  | { status: 'rejected'; eventId: string; refusal: Refusal };

export interface StoreInput {
  prepared: PreparedEvent;
  receivedAtUs: number;
}

function journeyMismatch(): Refusal {
  return {
    code: 'journey_environment_mismatch',
    message: 'The journey belongs to another environment.',
  };
}

function eventIdConflict(): Refusal {
  return {
    code: 'event_id_conflict',
    message: 'An event with this id is stored with different content.',
  };
}

/**
 * Stores prepared events of one project environment in the caller's transaction: verdicts are
 * decided per event in memory in batch order (each event sees the earlier ones), then written
 * with a fixed number of set-based statements.
 */
export async function storeEvents(
  db: Queryable,
  keyring: Keyring,
  scope: StoreScope,
  inputs: StoreInput[],
): Promise<StoreVerdict[]> {
  const { plan, existingEvents } = await readBatch(db, keyring, scope, inputs);
  const verdicts: StoreVerdict[] = [];
  for (const input of inputs) {
    const refused = verdictWithoutWrite(keyring, scope, plan, existingEvents, input.prepared);
    verdicts.push(refused ?? planEvent(keyring, scope, plan, input));
  }
  await writeBatch(db, keyring, scope, plan);
  return verdicts;
}

/**
 * The reads, in lock order: journeys (locked, id order) with the stored event ids in the same
 * statement, then aliases. Of a journey's aliases only those holding a value the batch states are
 * read (by token under every key), and they are found by key in memory: a journey that gathered
 * thousands of aliases costs little more per event than a new one.
 */
async function readBatch(db: Queryable, keyring: Keyring, scope: StoreScope, inputs: StoreInput[]) {
  const journeyIds = [...new Set(inputs.map((input) => input.prepared.event.journeyId))];
  const eventIds = [...new Set(inputs.map((i) => i.prepared.event.id))];
  const { locked, events: existingEvents } = await lockJourneysFindEvents(db, scope.projectId, journeyIds, eventIds);
  const lookupTokens = statedAliasTokens(keyring, inputs);
  const tokens = [...new Set([...lookupTokens.values()].flat())];
  const aliasSlots = new Map<string, AliasSlot>();
  if (locked.size > 0 && tokens.length > 0) {
    for (const row of await findAliases(db, scope.projectId, [...locked.keys()], tokens)) indexSlot(aliasSlots, slotFromRow(row));
  }

  const journeys = new Map<string, WorkingJourney>();
  for (const [id, row] of locked) {
    journeys.set(id, { state: row.state, environmentId: row.environmentId, isNew: false, changed: false, entityType: '', entityId: '' });
  }
  const plan: BatchPlan = {
    journeys,
    aliasSlots,
    lookupTokens,
    batchEvents: new Map(),
    eventRows: [],
    tokens: [],
    clearedAliasIds: new Set(),
    newAliases: [],
    nextRef: 1,
  };
  return { plan, existingEvents };
}

/**
 * The verdict of an event that writes nothing, in protocol order: journey environment, then
 * duplicate / conflict (stored, then earlier in the batch), then storability. Null: store it.
 */
function verdictWithoutWrite(
  keyring: Keyring,
  scope: StoreScope,
  plan: BatchPlan,
  existingEvents: Map<string, ExistingEvent>,
  prepared: PreparedEvent,
): StoreVerdict | null {
  const event = prepared.event;
  const journey = plan.journeys.get(event.journeyId);
  if (journey && journey.environmentId !== scope.environmentId) {
    return { status: 'rejected', eventId: event.id, refusal: journeyMismatch() };
  }
  const stored = existingEvents.get(event.id);
  if (stored) {
    const same = contentHashMatches(keyring, prepared.canonical, { keyId: stored.keyId, hash: stored.hash }) === true;
    return duplicateOrConflict(prepared, same);
  }
  const earlier = plan.batchEvents.get(event.id);
  if (earlier) return duplicateOrConflict(prepared, earlier.canonical === prepared.canonical);
  if (prepared.unstorablePath !== null) {
    return { status: 'rejected', eventId: event.id, refusal: unstorableRefusal(prepared.unstorablePath) };
  }
  return null;
}

function duplicateOrConflict(prepared: PreparedEvent, same: boolean): StoreVerdict {
  const event = prepared.event;
  return same
    ? { status: 'accepted', eventId: event.id, journeyId: event.journeyId, duplicate: true }
    : { status: 'rejected', eventId: event.id, refusal: eventIdConflict() };
}

/** Adds an accepted event to the plan: its journey's summary, its aliases, its tokens, its row. */
function planEvent(keyring: Keyring, scope: StoreScope, plan: BatchPlan, { prepared, receivedAtUs }: StoreInput): StoreVerdict {
  const event = prepared.event;
  applyToJourney(keyring, scope, plan, prepared, receivedAtUs);
  const stated = planAliases(keyring, plan, event);
  for (const kind of EVENT_ROW_TOKEN_KINDS) addToken(keyring, plan, event[EVENT_FIELD_TOKEN_KINDS[kind]], event.journeyId, kind);

  plan.batchEvents.set(event.id, { canonical: prepared.canonical });
  plan.eventRows.push({ row: eventRow(keyring, prepared, scope.environmentId, receivedAtUs), slots: stated });
  return { status: 'accepted', eventId: event.id, journeyId: event.journeyId, duplicate: false };
}

/** Applies the event to its journey's state, creating the journey (and its tokens) when new. */
function applyToJourney(keyring: Keyring, scope: StoreScope, plan: BatchPlan, prepared: PreparedEvent, receivedAtUs: number): void {
  const event = prepared.event;
  const summaryEvent: SummaryEvent = {
    key: { timestampMs: event.timestampMs, receivedAtUs, eventId: event.id },
    name: event.name,
    service: event.service,
    eventClass: classifyEvent(event),
    ...(event.journeyLabel !== undefined ? { journeyLabel: event.journeyLabel } : {}),
  };
  let working = plan.journeys.get(event.journeyId);
  if (!working) {
    working = {
      state: newJourneyState(summaryEvent),
      environmentId: scope.environmentId,
      isNew: true,
      changed: true,
      entityType: event.entity.type,
      entityId: event.entity.id,
    };
    plan.journeys.set(event.journeyId, working);
    addToken(keyring, plan, event.entity.id, event.journeyId, 'entity_id');
    addToken(keyring, plan, event.journeyId, event.journeyId, 'journey_id');
  }
  working.state = applyEvent(working.state, summaryEvent);
  working.changed = true;
}

/**
 * Aliases: one slot per (type, normalized value) and journey; a new value gets a new row, and
 * every statement that does not list the type as displayable clears it. Returns the event's slots.
 */
function planAliases(keyring: Keyring, plan: BatchPlan, event: PreparedEvent['event']): AliasSlot[] {
  const listed = new Set(event.displayableAliases ?? []);
  const stated: AliasSlot[] = [];
  for (const [type, value] of Object.entries(event.aliases ?? {})) {
    const normalized = normalizeIdentifier(value);
    const slot = findSlot(keyring, plan, event.journeyId, type, normalized)
      ?? newSlot(keyring, plan, event.journeyId, type, value, normalized, listed.has(type));
    if (slot.displayable && !listed.has(type)) clearDisplay(plan, slot);
    if (!stated.includes(slot)) stated.push(slot);
  }
  return stated;
}

function findSlot(keyring: Keyring, plan: BatchPlan, journeyId: string, type: string, normalized: string): AliasSlot | undefined {
  const candidates = plan.lookupTokens.get(normalized) ?? searchTokensForLookup(keyring, normalized).map((t) => t.token);
  for (const token of candidates) {
    const slot = plan.aliasSlots.get(slotKey(journeyId, type, token));
    if (slot !== undefined) return slot;
  }
  return undefined;
}

/** JSON keeps the three parts apart, whatever characters they hold. */
function slotKey(journeyId: string, type: string, token: string): string {
  return JSON.stringify([journeyId, type, token]);
}

function indexSlot(index: Map<string, AliasSlot>, slot: AliasSlot): void {
  index.set(slotKey(slot.journeyId, slot.type, slot.token), slot);
}

/** The tokens each alias value of the batch may be stored under (one per configured key), by normalized value. */
function statedAliasTokens(keyring: Keyring, inputs: StoreInput[]): Map<string, string[]> {
  const byValue = new Map<string, string[]>();
  for (const input of inputs) {
    // An event refused as unstorable is never stored, and its values may have no UTF-8 form.
    if (input.prepared.unstorablePath !== null) continue;
    for (const value of Object.values(input.prepared.event.aliases ?? {})) {
      const normalized = normalizeIdentifier(value);
      if (!byValue.has(normalized)) byValue.set(normalized, searchTokensForLookup(keyring, normalized).map((t) => t.token));
    }
  }
  return byValue;
}

function newSlot(
  keyring: Keyring,
  plan: BatchPlan,
  journeyId: string,
  type: string,
  value: string,
  normalized: string,
  displayable: boolean,
): AliasSlot {
  // The batch's lookup tokens of this value put the current key's first: the one written.
  const lookup = plan.lookupTokens.get(normalized);
  const write = lookup !== undefined ? { keyId: keyring.currentKeyId, token: lookup[0]! } : searchTokenForWrite(keyring, normalized);
  const slot: AliasSlot = { id: null, ref: plan.nextRef++, journeyId, type, token: write.token, displayable };
  indexSlot(plan.aliasSlots, slot);
  plan.newAliases.push({
    ref: slot.ref,
    journey_id: journeyId,
    alias_type: type,
    value_encrypted: encryptField(keyring, value),
    token: write.token,
    token_key_id: write.keyId,
    displayable,
    display_value: displayable && !value.includes('\u0000') ? value : null,
    // An e-mail address or phone number is also indexed under its normal form (loose matching).
    loose: aliasLooseTokensForWrite(keyring, type, value).map((t) => ({ token: t.token, kind: t.kind, key_id: t.keyId })),
  });
  // A blank value keeps its alias row (its identity) but is not indexed: nobody can search
  // for it, and an index entry of '' is one rotation would have no value to re-key from.
  if (normalized !== '') plan.tokens.push({ token: write.token, journey_id: journeyId, kind: 'alias', key_id: write.keyId });
  return slot;
}

/** A stored row is cleared by one UPDATE; a row still to be inserted is inserted cleared. */
function clearDisplay(plan: BatchPlan, slot: AliasSlot): void {
  slot.displayable = false;
  if (slot.id !== null) plan.clearedAliasIds.add(slot.id);
  else {
    const pending = plan.newAliases.find((row) => row.ref === slot.ref)!;
    pending.displayable = false;
    pending.display_value = null;
  }
}

function addToken(keyring: Keyring, plan: BatchPlan, value: string | undefined, journeyId: string, kind: SearchTokenKind): void {
  const token = idToken(keyring, value);
  if (token !== null) plan.tokens.push({ token, journey_id: journeyId, kind, key_id: keyring.currentKeyId });
}

/** The search token of an id under the current key; null when absent or blank (never indexed). */
function idToken(keyring: Keyring, value: string | undefined): string | null {
  if (value === undefined) return null;
  const normalized = normalizeIdentifier(value);
  return normalized === '' ? null : searchTokenForWrite(keyring, normalized).token;
}

function slotFromRow(row: ExistingAlias): AliasSlot {
  return { id: row.id, ref: 0, journeyId: row.journeyId, type: row.type, token: row.token, displayable: row.displayable };
}

function eventRow(keyring: Keyring, prepared: PreparedEvent, environmentId: string, receivedAtUs: number): EventRow {
  const { event, capture } = prepared;
  const traceToken = idToken(keyring, event.traceId);
  const spanToken = idToken(keyring, event.spanId);
  return {
    id: event.id,
    journey_id: event.journeyId,
    environment_id: environmentId,
    operation: event.operation,
    name: event.name,
    service: event.service,
    ts_ms: event.timestampMs,
    received_us: receivedAtUs,
    duration_ms: event.durationMs ?? null,
    parent_event_id: event.parentEventId ?? null,
    trace_id: event.traceId ?? null,
    span_id: event.spanId ?? null,
    trace_token: traceToken,
    span_token: spanToken,
    search_key_id: traceToken === null && spanToken === null ? null : keyring.currentKeyId,
    message_id: event.messageId ?? null,
    correlation_id: event.correlationId ?? null,
    has_input: capture.hasInput,
    has_output: capture.hasOutput,
    has_error: event.error !== undefined,
    input_payload: capture.inputPayload,
    output_payload: capture.outputPayload,
    payload_diff: prepared.payloadDiff,
    error: capture.error,
    runtime_metadata: capture.runtimeMetadata,
    deployment_metadata: capture.deploymentMetadata,
    custom_metadata: capture.customMetadata,
    stated_alias_ids: [],
    content_hash: prepared.hash.hash,
    content_hash_key_id: prepared.hash.keyId,
  };
}

