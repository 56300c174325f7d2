import type { Queryable } from '../db/pool.ts';
import { ArrayLiteral } from '../db/array-literals.ts';
import type { JourneyState, TimelineKey } from './journey-summary.ts';
import type { SearchTokenKind } from '../protocol/search-token-kinds.ts';

/**
 * The set-based statements of one ingestion transaction: a batch costs a fixed handful of
 * round trips whatever its size. Rows travel as one JSON array each (jsonb_to_recordset), as
 * one array per column where every column is text (unnest), or, for the events, as one array
 * literal per short column and one JSON array per payload column (ROWS FROM). Instants with microseconds
 * travel as integers so nothing is lost to float rounding. The statements run on every batch
 * are named, so each connection parses and plans them once.
 */

const MICROS = `timestamptz 'epoch' + %s * interval '1 microsecond'`;
const micros = (column: string) => MICROS.replace('%s', column);
const epochMs = (column: string) => `floor(extract(epoch from ${column}) * 1000)::int8`;
const epochUs = (column: string) => `floor(extract(epoch from ${column}) * 1000000)::int8`;

export interface LockedJourney {
  id: string;
  environmentId: string;
  state: JourneyState;
}

interface JourneyRecord {
  id: string;
  environment_id: string;
  status: JourneyState['status'];
  event_count: number;
  started_ms: number;
  last_ms: number;
  completed_ms: number | null;
  services: string[];
  label: string | null;
  label_ts: number | null;
  label_us: number | null;
  label_event_id: string | null;
  last_step: string | null;
  last_step_ts: number | null;
  last_step_us: number | null;
  last_step_event_id: string | null;
  failed_step: string | null;
  failed_ts: number | null;
  failed_us: number | null;
  failed_event_id: string | null;
}

function key(ts: number | null, us: number | null, id: string | null): TimelineKey | null {
  return ts === null || us === null || id === null ? null : { timestampMs: ts, receivedAtUs: us, eventId: id };
}

/**
 * The first read of a batch, one round trip: locks the batch's existing journeys in id order (so
 * concurrent batches never deadlock), then reads which of its event ids are stored. The event read
 * shares the statement's snapshot, taken before any wait for a journey's lock: an id that a
 * concurrent writer commits meanwhile is not seen, and the batch's insert of it then fails on the
 * unique key and the batch is retried (storeWithRetry), seeing it then, as a second read would.
 */
export async function lockJourneysFindEvents(
  db: Queryable,
  projectId: string,
  journeyIds: string[],
  eventIds: string[],
): Promise<{ locked: Map<string, LockedJourney>; events: Map<string, ExistingEvent> }> {
  // event_ids (migration 0017) gives each stored id's received_at, so each found event is one
  // probe into its own partition rather than one per partition.
  const result = await db.query<{ journeys: JourneyRecord[]; events: Array<[string, string, string, string]> }>({
    name: 'ingest-lock-journeys-find-events',
    text: `WITH locked AS MATERIALIZED (
         SELECT id, environment_id, status, event_count, ${epochMs('started_at')} AS started_ms, ${epochMs('last_event_at')} AS last_ms,
                ${epochMs('completed_at')} AS completed_ms, services,
                label, ${epochMs('label_event_ts')} AS label_ts, ${epochUs('label_event_received_at')} AS label_us, label_event_id,
                last_step, ${epochMs('last_step_event_ts')} AS last_step_ts, ${epochUs('last_step_received_at')} AS last_step_us, last_step_event_id,
                failed_step, ${epochMs('failed_event_ts')} AS failed_ts, ${epochUs('failed_event_received_at')} AS failed_us, failed_event_id
           FROM journeys WHERE project_id = $1 AND id = ANY($2::text[]) ORDER BY id COLLATE "C" FOR UPDATE)
       SELECT (SELECT coalesce(json_agg(l), '[]') FROM locked l) AS journeys,
              (SELECT coalesce(json_agg(json_build_array(e.id, e.journey_id, e.content_hash, e.content_hash_key_id)), '[]')
                 FROM event_ids i JOIN events e ON e.project_id = i.project_id AND e.id = i.id AND e.received_at = i.received_at
                WHERE i.project_id = $1 AND i.id = ANY($3::text[])) AS events`,
    values: [projectId, journeyIds, eventIds],
  });
  const row = result.rows[0]!;
  return {
    locked: new Map(row.journeys.map((journey) => [journey.id, lockedJourney(journey)])),
    events: new Map(row.events.map(([id, journeyId, hash, keyId]) => [id, { id, journeyId, hash, keyId }])),
  };
}

function lockedJourney(row: JourneyRecord): LockedJourney {
  return {
    id: row.id,
    environmentId: row.environment_id,
    state: {
      status: row.status,
      eventCount: row.event_count,
      startedAtMs: row.started_ms,
      lastEventAtMs: row.last_ms,
      completedAtMs: row.completed_ms,
      services: row.services,
      label: row.label,
      labelKey: key(row.label_ts, row.label_us, row.label_event_id),
      lastStep: row.last_step,
      lastStepKey: key(row.last_step_ts, row.last_step_us, row.last_step_event_id),
      failedStep: row.failed_step,
      failedKey: key(row.failed_ts, row.failed_us, row.failed_event_id),
    },
  };
}

export interface ExistingEvent {
  id: string;
  journeyId: string;
  hash: string;
  keyId: string;
}

export interface ExistingAlias {
  id: number;
  journeyId: string;
  type: string;
  token: string;
  displayable: boolean;
}

/**
 * The aliases of these journeys stored under one of the tokens (a value's token under any key):
 * one pass over the journeys' aliases inside PostgreSQL, with only the matches sent back.
 */
export async function findAliases(db: Queryable, projectId: string, journeyIds: string[], tokens: string[]): Promise<ExistingAlias[]> {
  const result = await db.query<ExistingAlias>({
    name: 'ingest-find-aliases',
    text: `SELECT id, journey_id AS "journeyId", alias_type AS type, token, displayable
       FROM journey_aliases
      WHERE project_id = $1 AND journey_id = ANY($2::text[]) AND token = ANY($3::text[])`,
    values: [projectId, journeyIds, tokens],
  });
  return result.rows;
}

/** The summary columns of a journey, flattened for jsonb_to_recordset. */
export function summaryRecord(id: string, state: JourneyState) {
  return {
    id,
    status: state.status,
    event_count: state.eventCount,
    started_ms: state.startedAtMs,
    last_ms: state.lastEventAtMs,
    completed_ms: state.completedAtMs,
    services: state.services,
    label: state.label,
    label_ts: state.labelKey?.timestampMs ?? null,
    label_us: state.labelKey?.receivedAtUs ?? null,
    label_event_id: state.labelKey?.eventId ?? null,
    last_step: state.lastStep,
    last_step_ts: state.lastStepKey?.timestampMs ?? null,
    last_step_us: state.lastStepKey?.receivedAtUs ?? null,
    last_step_event_id: state.lastStepKey?.eventId ?? null,
    failed_step: state.failedStep,
    failed_ts: state.failedKey?.timestampMs ?? null,
    failed_us: state.failedKey?.receivedAtUs ?? null,
    failed_event_id: state.failedKey?.eventId ?? null,
  };
}

const SUMMARY_RECORD_COLUMNS = `id text, status text, event_count int, started_ms int8, last_ms int8, completed_ms int8,
  services text[], label text, label_ts int8, label_us int8, label_event_id text, last_step text, last_step_ts int8,
  last_step_us int8, last_step_event_id text, failed_step text, failed_ts int8, failed_us int8, failed_event_id text`;

const ms = (column: string) => micros(`(${column} * 1000)`);

type NewJourneyRow = ReturnType<typeof summaryRecord> & { environment_id: string; entity_type: string; entity_id_encrypted: string };

/**
 * New journeys, new aliases (with their loose tokens) and search tokens in one statement (one round trip). Each journey
 * written here and in updateJourneys is marked for the findings analyzer in the same statement,
 * so the mark commits with the events (migrations 0007, 0019). Aliases go in in batch order (refs
 * increase with it, so ids keep first-stored order). Tokens of journeys created here cannot
 * exist yet and are inserted plainly; those of stored journeys skip what is already there.
 * The foreign-key checks of aliases and tokens run at the end of the statement, when the new
 * journeys are in place.
 */
export async function insertJourneysAliasesTokens(
  db: Queryable,
  projectId: string,
  rows: { journeys: NewJourneyRow[]; aliases: NewAliasRow[]; newJourneyTokens: TokenRow[]; storedJourneyTokens: TokenRow[] },
): Promise<{ journeysInserted: number; aliasIds: Map<number, number> }> {
  const columns = (tokens: TokenRow[]) => [tokens.map((t) => t.token), tokens.map((t) => t.journey_id), tokens.map((t) => t.kind), tokens.map((t) => t.key_id)];
  const result = await db.query<{ journeys: number; aliases: Array<[number, number]> }>({
    name: 'ingest-journeys-aliases-tokens',
    text: `WITH new_journeys AS (
       INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, status, event_count,
          started_at, last_event_at, completed_at, services, label, label_event_ts, label_event_received_at, label_event_id,
          last_step, last_step_event_ts, last_step_received_at, last_step_event_id,
          failed_step, failed_event_ts, failed_event_received_at, failed_event_id)
       SELECT $1, r.id, r.environment_id, r.entity_type, r.entity_id_encrypted, r.status, r.event_count,
          ${ms('r.started_ms')}, ${ms('r.last_ms')}, ${ms('r.completed_ms')}, r.services, r.label, ${ms('r.label_ts')}, ${micros('r.label_us')}, r.label_event_id,
          r.last_step, ${ms('r.last_step_ts')}, ${micros('r.last_step_us')}, r.last_step_event_id,
          r.failed_step, ${ms('r.failed_ts')}, ${micros('r.failed_us')}, r.failed_event_id
         FROM jsonb_to_recordset($2::jsonb) AS r(${SUMMARY_RECORD_COLUMNS}, environment_id uuid, entity_type text, entity_id_encrypted text)
       ON CONFLICT (project_id, id) DO NOTHING
       RETURNING id
     ), new_marks AS (
       INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at)
       SELECT $1, id, nextval('journey_findings_pending_seq'), now() FROM new_journeys
     ), alias_input AS (
       SELECT r.* FROM jsonb_to_recordset($3::jsonb) AS r(ref int, journey_id text, alias_type text,
         value_encrypted text, token text, token_key_id text, displayable boolean, display_value text, loose jsonb)
     ), new_aliases AS (
       INSERT INTO journey_aliases (project_id, journey_id, alias_type, value_encrypted, token, token_key_id, displayable, display_value)
       SELECT $1, journey_id, alias_type, value_encrypted, token, token_key_id, displayable, display_value FROM alias_input ORDER BY ref
       RETURNING id, journey_id, alias_type, token
     ), new_loose_tokens AS (
       INSERT INTO loose_search_tokens (project_id, token, journey_id, kind, key_id)
       SELECT $1, l.token, a.journey_id, l.kind, l.key_id
         FROM alias_input a CROSS JOIN LATERAL jsonb_to_recordset(a.loose) AS l(token text, kind text, key_id text)
       ON CONFLICT DO NOTHING
     ), new_journey_tokens AS (
       INSERT INTO search_tokens (project_id, token, journey_id, kind, key_id)
       SELECT $1, * FROM unnest($4::text[], $5::text[], $6::text[], $7::text[])
     ), stored_journey_tokens AS (
       INSERT INTO search_tokens (project_id, token, journey_id, kind, key_id)
       SELECT $1, * FROM unnest($8::text[], $9::text[], $10::text[], $11::text[])
       ON CONFLICT DO NOTHING
     )
     SELECT (SELECT count(*) FROM new_journeys)::int AS journeys,
            (SELECT COALESCE(json_agg(json_build_array(alias_input.ref, new_aliases.id)), '[]') FROM new_aliases
               JOIN alias_input ON alias_input.journey_id = new_aliases.journey_id AND alias_input.alias_type = new_aliases.alias_type
                AND alias_input.token = new_aliases.token) AS aliases`,
    values: [projectId, JSON.stringify(rows.journeys), JSON.stringify(rows.aliases), ...columns(rows.newJourneyTokens), ...columns(rows.storedJourneyTokens)],
  });
  const row = result.rows[0]!;
  return { journeysInserted: row.journeys, aliasIds: new Map(row.aliases.map(([ref, id]) => [ref, Number(id)])) };
}

export async function updateJourneys(db: Queryable, projectId: string, rows: Array<ReturnType<typeof summaryRecord>>): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `WITH updated AS (
     UPDATE journeys j SET status = r.status, event_count = r.event_count, started_at = ${ms('r.started_ms')},
        last_event_at = ${ms('r.last_ms')}, completed_at = ${ms('r.completed_ms')}, services = r.services,
        label = r.label, label_event_ts = ${ms('r.label_ts')}, label_event_received_at = ${micros('r.label_us')}, label_event_id = r.label_event_id,
        last_step = r.last_step, last_step_event_ts = ${ms('r.last_step_ts')}, last_step_received_at = ${micros('r.last_step_us')},
        last_step_event_id = r.last_step_event_id, failed_step = r.failed_step, failed_event_ts = ${ms('r.failed_ts')},
        failed_event_received_at = ${micros('r.failed_us')}, failed_event_id = r.failed_event_id
       FROM jsonb_to_recordset($2::jsonb) AS r(${SUMMARY_RECORD_COLUMNS})
      WHERE j.project_id = $1 AND j.id = r.id
      RETURNING j.id
     )
     INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at)
     SELECT $1, id, nextval('journey_findings_pending_seq'), now() FROM updated
     ON CONFLICT (project_id, journey_id) DO UPDATE SET pending = EXCLUDED.pending`,
    [projectId, JSON.stringify(rows)],
  );
}

export interface NewAliasRow {
  ref: number;
  journey_id: string;
  alias_type: string;
  value_encrypted: string;
  token: string;
  token_key_id: string;
  displayable: boolean;
  display_value: string | null;
  /** The alias's loose search tokens (src/crypto/loose-tokens.ts): often none. */
  loose: Array<{ token: string; kind: string; key_id: string }>;
}

/** The every-statement rule: one statement without the listing clears the flag for good. */
export async function clearAliasDisplay(db: Queryable, projectId: string, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    'UPDATE journey_aliases SET displayable = false, display_value = NULL WHERE project_id = $1 AND id = ANY($2::int8[])',
    [projectId, ids],
  );
}

export interface EventRow {
  id: string;
  journey_id: string;
  environment_id: string;
  operation: string;
  name: string;
  service: string;
  ts_ms: number;
  received_us: number;
  duration_ms: number | null;
  parent_event_id: string | null;
  trace_id: string | null;
  span_id: string | null;
  /** Search tokens of the normalized trace and span ids, under search_key_id: stored in event_ids (migration 0022). */
  trace_token: string | null;
  span_token: string | null;
  search_key_id: string | null;
  message_id: string | null;
  correlation_id: string | null;
  has_input: boolean;
  has_output: boolean;
  has_error: boolean;
  input_payload: unknown;
  output_payload: unknown;
  payload_diff: unknown;
  error: unknown;
  runtime_metadata: unknown;
  deployment_metadata: unknown;
  custom_metadata: unknown;
  stated_alias_ids: number[];
  content_hash: string;
  content_hash_key_id: string;
}

const numberText = (value: number | null): string | null => (value === null ? null : String(value));

/**
 * The events statement's columns other than the payloads, in order: name, element type, the
 * element's text (null is NULL). stated_alias_ids travels as each row's int8[] literal in a
 * text[]: unnest of a two-dimensional array would flatten it, and rows list different numbers.
 */
const EVENT_COLUMNS: ReadonlyArray<readonly [string, string, (row: EventRow) => string | null]> = [
  ['id', 'text', (r) => r.id],
  ['journey_id', 'text', (r) => r.journey_id],
  ['environment_id', 'uuid', (r) => r.environment_id],
  ['operation', 'text', (r) => r.operation],
  ['name', 'text', (r) => r.name],
  ['service', 'text', (r) => r.service],
  ['ts_ms', 'int8', (r) => String(r.ts_ms)],
  ['received_us', 'int8', (r) => String(r.received_us)],
  ['duration_ms', 'int', (r) => numberText(r.duration_ms)],
  ['parent_event_id', 'text', (r) => r.parent_event_id],
  ['trace_id', 'text', (r) => r.trace_id],
  ['span_id', 'text', (r) => r.span_id],
  ['trace_token', 'text', (r) => r.trace_token],
  ['span_token', 'text', (r) => r.span_token],
  ['search_key_id', 'text', (r) => r.search_key_id],
  ['message_id', 'text', (r) => r.message_id],
  ['correlation_id', 'text', (r) => r.correlation_id],
  ['has_input', 'bool', (r) => (r.has_input ? 't' : 'f')],
  ['has_output', 'bool', (r) => (r.has_output ? 't' : 'f')],
  ['has_error', 'bool', (r) => (r.has_error ? 't' : 'f')],
  ['stated_alias_ids', 'text', (r) => `{${r.stated_alias_ids.join(',')}}`],
  ['content_hash', 'text', (r) => r.content_hash],
  ['content_hash_key_id', 'text', (r) => r.content_hash_key_id],
];

/** The jsonb columns: each travels as one JSON array of the batch's values, in row order. */
const PAYLOAD_COLUMNS = ['input_payload', 'output_payload', 'payload_diff', 'error', 'runtime_metadata', 'deployment_metadata', 'custom_metadata'] as const;

const EVENT_COLUMN_NAMES = [...EVENT_COLUMNS.map(([name]) => name), ...PAYLOAD_COLUMNS].join(', ');

// ROWS FROM zips the arrays position by position. A JSON null element is SQL NULL, as a null
// field of a jsonb_to_recordset record was.
const INSERT_EVENTS_SQL = `WITH r AS (
       SELECT ${EVENT_COLUMNS.map(([name]) => `r.${name}`).join(', ')}, ${PAYLOAD_COLUMNS.map((name) => `nullif(r.${name}, 'null') AS ${name}`).join(', ')},
          ${ms('r.ts_ms')} AS event_timestamp, ${micros('r.received_us')} AS received_at
         FROM ROWS FROM (${EVENT_COLUMNS.map(([, type], i) => `unnest($${i + 2}::${type}[])`).join(', ')},
           ${PAYLOAD_COLUMNS.map((_, i) => `jsonb_array_elements($${EVENT_COLUMNS.length + i + 2}::jsonb)`).join(', ')})
           AS r(${EVENT_COLUMN_NAMES})
     ), ids AS (
       INSERT INTO event_ids (project_id, id, journey_id, received_at, trace_token, span_token, search_key_id)
       SELECT $1, r.id, r.journey_id, r.received_at, r.trace_token, r.span_token, r.search_key_id FROM r
     )
     INSERT INTO events (project_id, id, journey_id, environment_id, operation, name, service, event_timestamp, received_at,
        duration_ms, parent_event_id, trace_id, span_id, message_id, correlation_id, has_input, has_output, has_error,
        input_payload, output_payload, payload_diff, error, runtime_metadata, deployment_metadata, custom_metadata,
        stated_alias_ids, content_hash, content_hash_key_id)
     SELECT $1, r.id, r.journey_id, r.environment_id, r.operation, r.name, r.service, r.event_timestamp, r.received_at,
        r.duration_ms, r.parent_event_id, r.trace_id, r.span_id, r.message_id, r.correlation_id, r.has_input, r.has_output,
        r.has_error, r.input_payload, r.output_payload, r.payload_diff, r.error, r.runtime_metadata, r.deployment_metadata, r.custom_metadata,
        r.stated_alias_ids::int8[], r.content_hash, r.content_hash_key_id
       FROM r`;

/**
 * The one writer of events: each event's event_ids row (idempotency, migration 0017) is written
 * by the same statement, from the same decoded row, so the two can never disagree on
 * received_at and a concurrent duplicate still fails on event_ids' primary key. The short
 * columns travel as one array literal each, built in one pass (ArrayLiteral), the payloads as
 * one JSON array per column: about a tenth less time for the statement than one JSON document of the
 * whole batch, where quoting the payloads into jsonb[] literals cost more than it saved
 * (docs/benchmarks.md, "Ingestion: the gap ...").
 */
export async function insertEvents(db: Queryable, projectId: string, rows: EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  const arrays = EVENT_COLUMNS.map(() => new ArrayLiteral());
  for (const row of rows) {
    for (let c = 0; c < EVENT_COLUMNS.length; c++) {
      const [, type, element] = EVENT_COLUMNS[c]!;
      const value = element(row);
      // Numbers, t/f and uuids need no quoting; any text does.
      if (type === 'text' || value === null) arrays[c]!.text(value);
      else arrays[c]!.plain(value);
    }
  }
  const payloads = PAYLOAD_COLUMNS.map((name) => JSON.stringify(rows.map((row) => row[name] ?? null)));
  await db.query({ name: 'ingest-insert-events', text: INSERT_EVENTS_SQL, values: [projectId, ...arrays.map(String), ...payloads] });
}

export interface TokenRow {
  token: string;
  journey_id: string;
  kind: SearchTokenKind;
  key_id: string;
}
