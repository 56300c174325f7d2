// Data of the query benchmark, generated set-based inside PostgreSQL (generate_series). Journey
// n has deterministic identifiers (journey id `jrn_<md5(n)>`, entity id `cust-<n>`, alias
// `user<n>@example.com`, trace id from the journey id) so the benchmark can search for them;
// times and statuses are random. Search tokens are computed in SQL with pgcrypto's hmac() on
// the real search-token subkey, which gives exactly the token of src/crypto/search-tokens.ts
// (checked at start); entity ids and alias values are real ciphertexts from a pool of 1,000.

import { createHash } from 'node:crypto';
import { encryptField } from '../src/crypto/field-encryption.ts';
import type { Keyring } from '../src/crypto/keyring.ts';
import { searchToken } from '../src/crypto/search-tokens.ts';
import type { Pool } from '../src/db/pool.ts';

export const SURNAMES = [
  'smith', 'johnson', 'williams', 'brown', 'jones', 'garcia', 'miller', 'davis', 'rodriguez', 'martinez',
  'hernandez', 'lopez', 'gonzalez', 'wilson', 'anderson', 'thomas', 'taylor', 'moore', 'jackson', 'martin',
  'lee', 'perez', 'thompson', 'white', 'harris', 'sanchez', 'clark', 'ramirez', 'lewis', 'robinson',
  'walker', 'young', 'allen', 'king', 'wright', 'scott', 'torres', 'nguyen', 'hill', 'flores',
  'green', 'adams', 'nelson', 'baker', 'hall', 'rivera', 'campbell', 'mitchell', 'carter', 'roberts',
];
const FIRST_NAMES = ['Alice', 'Bruno', 'Chloé', 'Dmitri', 'Elena', 'Farid', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kemal', 'Lucía'];
export const SERVICES = ['gateway', 'checkout', 'payments', 'inventory', 'shipping', 'notifications', 'billing', 'crm'];
export const ENVIRONMENTS = ['production', 'staging', 'development'];

export interface Scale {
  journeys: number;
  chunk: number;
  /** Mean events per journey: each journey has 1 to 2 × mean - 1 (BENCH_EVENTS_PER_JOURNEY). */
  eventsPerJourney: number;
  /**
   * `full`: every journey an e-mail alias and every other one a phone, events with span ids and runtime and
   * deployment metadata. `compact` (BENCH_SHAPE, for the 10-million run to fit a disk): the e-mail alias
   * only, no span ids, no metadata and smaller payloads; searches, lists and timelines read the same rows.
   */
  shape: Shape;
}

export type Shape = 'full' | 'compact';

export const journeyId = (n: number) => `jrn_${createHash('md5').update(String(n)).digest('hex')}`;
export const entityId = (n: number) => `cust-${n}`;
export const emailAlias = (n: number) => `user${n}@example.com`;
export const traceId = (n: number) => `trace-${createHash('md5').update(journeyId(n)).digest('hex').slice(0, 24)}`;

type Log = (line: string) => void;

/**
 * Secondary indexes and droppable constraints are rebuilt after the load: far faster than row
 * by row. Returns the statements that rebuild them as the migrations left them, statistics
 * targets of index columns included (an index definition does not carry them).
 */
async function dropForLoad(pool: Pool): Promise<string[]> {
  const tables = `('journeys', 'journey_aliases', 'search_tokens', 'events', 'event_ids')`;
  const indexes = await pool.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes
      WHERE schemaname = 'public' AND tablename IN ${tables} AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
  );
  const targets = await pool.query<{ name: string; column: number; target: number }>(
    `SELECT c.relname AS name, a.attnum AS column, a.attstattarget AS target
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_attribute a ON a.attrelid = i.indexrelid
      WHERE i.indrelid::regclass::text IN ${tables} AND a.attstattarget > 0`,
  );
  const constraints = await pool.query<{ table: string; name: string; def: string }>(
    `SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE conrelid IN ('journey_aliases'::regclass, 'search_tokens'::regclass) AND contype IN ('p', 'u')`,
  );
  for (const index of indexes.rows) await pool.query(`DROP INDEX ${index.name}`);
  for (const c of constraints.rows) await pool.query(`ALTER TABLE ${c.table} DROP CONSTRAINT ${c.name}`);
  return [
    ...constraints.rows.map((c) => `ALTER TABLE ${c.table} ADD CONSTRAINT ${c.name} ${c.def}`),
    // A partitioned table's index is shown ON ONLY, which would build it on no partition.
    ...indexes.rows.map((index) => index.def.replace(' ON ONLY ', ' ON ')),
    ...targets.rows.map((t) => `ALTER INDEX ${t.name} ALTER COLUMN ${t.column} SET STATISTICS ${t.target}`),
  ];
}

/** pgcrypto's HMAC must give the very token the service computes, or search would find nothing. */
async function checkTokenParity(pool: Pool, keyring: Keyring, key: Buffer): Promise<void> {
  const value = 'user42@example.com';
  const result = await pool.query<{ token: string }>(
    `SELECT encode(hmac(convert_to($1, 'UTF8'), $2::bytea, 'sha256'), 'hex') AS token`,
    [value, key],
  );
  if (result.rows[0]?.token !== searchToken(keyring, value, 'current')) throw new Error('pgcrypto hmac() differs from searchToken()');
}

const TOKEN = (value: string, keyParam: string) => `encode(hmac(convert_to(${value}, 'UTF8'), ${keyParam}::bytea, 'sha256'), 'hex')`;

export interface ChunkValues {
  projectId: string;
  environmentIds: string[];
  ciphertexts: string[];
  nowIso: string;
  tokenKey: Buffer;
  keyId: string;
}

async function loadJourneys(pool: Pool, v: ChunkValues, lo: number, hi: number, eventsPerJourney: number): Promise<void> {
  await pool.query(
    `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, status, event_count,
                           started_at, last_event_at, completed_at, services, label, last_step, failed_step)
     SELECT $1, g.id, ($2::uuid[])[CASE WHEN n % 10 < 6 THEN 1 WHEN n % 10 < 9 THEN 2 ELSE 3 END],
            (ARRAY['order','order','order','customer','invoice','shipment','refund','order'])[1 + n % 8],
            ($3::text[])[1 + n % 1000], g.status, g.cnt, g.last - g.span, g.last,
            CASE WHEN g.status = 'completed' THEN g.last END,
            ARRAY(SELECT DISTINCT ($5::text[])[1 + (abs(hashtext(g.id)) + k * 3) % 8] COLLATE "C" AS s
                    FROM generate_series(0, g.cnt - 1) k ORDER BY s),
            CASE WHEN n % 5 <> 0 THEN 'Order ' || n || ' for ' || ($6::text[])[1 + n % 12] || ' ' || initcap(($7::text[])[1 + abs(hashtext(n::text || 's')) % 50]) END,
            CASE g.status WHEN 'completed' THEN 'complete' WHEN 'failed' THEN 'charge-card' ELSE 'step-' || g.cnt END,
            CASE WHEN g.status = 'failed' THEN 'charge-card' END
       FROM (SELECT n, 'jrn_' || md5(n::text) AS id, 1 + (n::int8 * 7919) % $10 AS cnt,
                    date_trunc('milliseconds', $4::timestamptz - random() * interval '30 days') AS last,
                    date_trunc('milliseconds', random() * interval '20 minutes') AS span,
                    (ARRAY['completed','completed','completed','completed','completed','completed','completed','active','active','failed'])[1 + floor(random() * 10)::int] AS status
               FROM generate_series($8::int, $9::int - 1) n) g`,
    [v.projectId, v.environmentIds, v.ciphertexts, v.nowIso, SERVICES, FIRST_NAMES, SURNAMES, lo, hi, 2 * eventsPerJourney - 1],
  );
}

/** Every journey has a displayable e-mail alias; every other one a masked phone alias. */
async function loadAliases(pool: Pool, v: ChunkValues, lo: number, hi: number, shape: Shape): Promise<void> {
  await pool.query(
    `INSERT INTO journey_aliases (project_id, journey_id, alias_type, value_encrypted, token, token_key_id, displayable, display_value)
     SELECT $1, 'jrn_' || md5(n::text), a.type, ($2::text[])[1 + (n + 7) % 1000], ${TOKEN('a.value', '$3')}, $4, a.shown,
            CASE WHEN a.shown THEN a.value END
       FROM generate_series($5::int, $6::int - 1) n
       CROSS JOIN LATERAL (VALUES ('email', 'user' || n || '@example.com', true), ('phone', '+1555' || lpad(n::text, 7, '0'), false)) AS a(type, value, shown)
      WHERE a.type = 'email' OR (n % 2 = 0 AND $7)`,
    [v.projectId, v.ciphertexts, v.tokenKey, v.keyId, lo, hi, shape === 'full'],
  );
}

/** Tokens of entity id, journey id, aliases and correlation id (trace and span ids: columns of event_ids, written after the events). */
async function loadTokens(pool: Pool, v: ChunkValues, lo: number, hi: number, shape: Shape): Promise<void> {
  await pool.query(
    `INSERT INTO search_tokens (project_id, token, journey_id, kind, key_id)
     SELECT $1, ${TOKEN('t.value', '$2')}, g.id, t.kind, $3
       FROM (SELECT n, 'jrn_' || md5(n::text) AS id FROM generate_series($4::int, $5::int - 1) n) g
       CROSS JOIN LATERAL (VALUES ('entity_id', 'cust-' || g.n), ('journey_id', g.id), ('alias', 'user' || g.n || '@example.com'),
                                  ('alias', CASE WHEN g.n % 2 = 0 AND $6 THEN '+1555' || lpad(g.n::text, 7, '0') END),
                                  ('correlation_id', 'corr-' || left(g.id, 16))) AS t(kind, value)
      WHERE t.value IS NOT NULL`,
    [v.projectId, v.tokenKey, v.keyId, lo, hi, shape === 'full'],
  );
}

/**
 * Events of the journeys whose id starts with `jrn_<prefix>`: one per event_count, timeline spread
 * evenly.
 */
async function loadEventChunk(pool: Pool, v: ChunkValues, services: string[], prefix: string, shape: Shape): Promise<void> {
  await pool.query(
    `INSERT INTO events (project_id, id, journey_id, environment_id, operation, name, service, event_timestamp, received_at,
                         duration_ms, trace_id, span_id, correlation_id, has_input, has_output, has_error, input_payload,
                         output_payload, error, deployment_metadata, runtime_metadata, stated_alias_ids, content_hash, content_hash_key_id)
     SELECT j.project_id, 'evt_' || substr(j.id, 5) || '_' || k, j.id, j.environment_id, e.operation, e.name,
            ($2::text[])[1 + (abs(hashtext(j.id)) + (k - 1) * 3) % 8], e.ts,
            e.ts + random() * interval '500 milliseconds', floor(random() * 800)::int,
            'trace-' || left(md5(j.id), 24), CASE WHEN $5 THEN 'span-' || k || '-' || left(md5(j.id), 8) END, 'corr-' || left(j.id, 16),
            k = 1, e.operation <> 'received', e.operation = 'failed',
            CASE WHEN k = 1 AND $5 THEN jsonb_build_object('orderId', j.id, 'amount', round((random() * 500)::numeric, 2), 'currency', 'EUR', 'items', 1 + k)
                 WHEN k = 1 THEN jsonb_build_object('amount', round((random() * 500)::numeric, 2)) END,
            CASE WHEN e.operation <> 'received' AND $5 THEN jsonb_build_object('ok', e.operation <> 'failed', 'step', k)
                 WHEN e.operation <> 'received' THEN jsonb_build_object('ok', e.operation <> 'failed') END,
            CASE WHEN e.operation = 'failed' AND $5 THEN jsonb_build_object('type', 'CardDeclined', 'message', 'card declined')
                 WHEN e.operation = 'failed' THEN jsonb_build_object('type', 'CardDeclined') END,
            CASE WHEN $5 THEN jsonb_build_object('version', '1.' || (k % 4) || '.0', 'gitCommit', left(md5(k::text), 12)) END,
            CASE WHEN $5 THEN jsonb_build_object('language', 'node', 'version', '20.11.0', 'sdk', jsonb_build_object('name', 'jtrace-js', 'version', '0.1.0')) END,
            '{}'::int8[], md5(j.id || k) || md5(k || j.id), 'bench'
       FROM journeys j
       CROSS JOIN LATERAL generate_series(1, j.event_count) k
       CROSS JOIN LATERAL (SELECT CASE WHEN j.event_count = 1 THEN j.last_event_at
                                       ELSE date_trunc('milliseconds', j.started_at + (j.last_event_at - j.started_at) * (k - 1) / (j.event_count - 1)) END AS ts,
                                  CASE WHEN k = 1 AND j.event_count > 1 THEN 'received'
                                       WHEN k = j.event_count AND j.status = 'completed' THEN 'completed'
                                       WHEN k = j.event_count AND j.status = 'failed' THEN 'failed'
                                       ELSE (ARRAY['identified','transformed','validated','persisted','published','consumed','delivered'])[1 + k % 7] END AS operation,
                                  CASE WHEN k = j.event_count AND j.status = 'completed' THEN 'complete'
                                       WHEN k = j.event_count AND j.status = 'failed' THEN 'charge-card'
                                       ELSE 'step-' || k END AS name) e
      WHERE j.project_id = $1 AND j.id >= 'jrn_' || $3 AND j.id < 'jrn_' || $4`,
    [v.projectId, services, prefix, nextPrefix(prefix), shape === 'full'],
  );
}

function nextPrefix(prefix: string): string {
  return prefix === 'f' ? 'g' : (parseInt(prefix, 16) + 1).toString(16);
}

export interface LoadInput {
  pool: Pool;
  keyring: Keyring;
  projectId: string;
  environmentIds: string[];
  nowMs: number;
  scale: Scale;
  log: Log;
}

/** Loads the whole data set and leaves it indexed, vacuumed and analysed. */
export async function loadData(input: LoadInput): Promise<void> {
  const { pool, keyring, scale, log } = input;
  const key = keyring.subkey('searchToken', 'current')!.export();
  await checkTokenParity(pool, keyring, key);
  // A data set of 30 days, stored as a server that ran through them would store it: one
  // partition per day of received_at (migration 0017), none left to the catch-all ones.
  await pool.query('DROP TABLE events_history');
  await pool.query(`SELECT jtrace_ensure_event_partitions(($1::timestamptz - interval '32 days')::date, ($1::timestamptz + interval '7 days')::date)`, [
    new Date(input.nowMs).toISOString(),
  ]);
  const rebuild = await dropForLoad(pool);
  const ciphertexts = Array.from({ length: 1000 }, (_, i) => encryptField(keyring, `cust-placeholder-${i}`));
  const values: ChunkValues = {
    projectId: input.projectId,
    environmentIds: input.environmentIds,
    ciphertexts,
    nowIso: new Date(input.nowMs).toISOString(),
    tokenKey: key,
    keyId: keyring.currentKeyId,
  };
  let started = performance.now();
  for (let lo = 1; lo <= scale.journeys; lo += scale.chunk) {
    const hi = Math.min(lo + scale.chunk, scale.journeys + 1);
    await loadJourneys(pool, values, lo, hi, scale.eventsPerJourney);
    await loadAliases(pool, values, lo, hi, scale.shape);
    await loadTokens(pool, values, lo, hi, scale.shape);
    log(`  journeys, aliases, tokens: ${Math.min(lo + scale.chunk - 1, scale.journeys).toLocaleString('en')} / ${scale.journeys.toLocaleString('en')} (${secondsSince(started)})`);
  }
  started = performance.now();
  for (const prefix of '0123456789abcdef') {
    await loadEventChunk(pool, values, SERVICES, prefix, scale.shape);
    log(`  events of journeys jrn_${prefix}…: done (${secondsSince(started)})`);
  }
  // The ids and trace and span tokens ingestion writes beside each event (insertEvents), for every event at once.
  await pool.query(
    `INSERT INTO event_ids (project_id, id, journey_id, received_at, trace_token, span_token, search_key_id)
     SELECT project_id, id, journey_id, received_at, ${TOKEN('trace_id', '$1')}, ${TOKEN('span_id', '$1')}, $2 FROM events`,
    [values.tokenKey, values.keyId],
  );
  log(`  event ids (${secondsSince(started)})`);
  started = performance.now();
  for (const statement of rebuild) {
    await pool.query(statement);
    log(`  ${statement.slice(0, 90)}… (${secondsSince(started)})`);
  }
  await pool.query('VACUUM (ANALYZE) journeys, journey_aliases, search_tokens, events, event_ids');
  log(`  vacuum and analyze (${secondsSince(started)})`);
}

export function secondsSince(started: number): string {
  return `${((performance.now() - started) / 1000).toFixed(1)} s`;
}
