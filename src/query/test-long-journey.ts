// A very long journey for tests and the long-journey benchmark (not a test itself): a journey
// that ingestion already created (its row, encrypted entity id, aliases) grows by `count` events
// written in one statement, the way ingestion writes them (events and their event_ids rows in the
// same statement, migration 0020). 200,000 events take a few seconds, not the minutes that
// 2,000 batches through the route would.

import { encryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool, Queryable } from '../db/pool.ts';

export interface GrowOptions {
  /** Event id prefix: ids are `<prefix><7-digit position>`, so their byte order is their position. */
  prefix: string;
  /** eventTimestamp of the first new event; each next one is a second later. */
  firstTimestampMs: number;
  /** receivedAt of the first new event; each next one is a millisecond later. */
  firstReceivedMs: number;
}

/**
 * Appends `count` events to the journey, each storing an input and an output of about 200 bytes
 * (`{customer: {name, email, phone}, n}`; the output's `n` is one more), over six services and
 * ten step names, and updates the journey's count and last event time as ingestion would.
 */
export async function growJourney(db: Queryable, projectId: string, journeyId: string, count: number, options: GrowOptions): Promise<void> {
  await db.query(
    `WITH r AS (
       SELECT k, $3 || lpad(k::text, 7, '0') AS id,
              timestamptz 'epoch' + ($4::float8 + k * 1000) * interval '1 millisecond' AS event_timestamp,
              timestamptz 'epoch' + ($5::float8 + k) * interval '1 millisecond' AS received_at,
              jsonb_build_object('name', 'Ada Lovelace', 'email', 'ada@example.com', 'phone', '+44 20 7946 0018') AS customer
         FROM generate_series(0, $6::int - 1) k
     ), ids AS (
       INSERT INTO event_ids (project_id, id, journey_id, received_at)
       SELECT $1, r.id, $2, r.received_at FROM r
     )
     INSERT INTO events (project_id, id, journey_id, environment_id, operation, name, service, event_timestamp, received_at,
                         duration_ms, has_input, has_output, has_error, input_payload, output_payload, stated_alias_ids,
                         content_hash, content_hash_key_id)
     SELECT $1, r.id, $2, j.environment_id, 'transformed', 'step-' || (r.k % 10),
            (ARRAY['webhook', 'contacts', 'crm', 'queue', 'queue', 'worker'])[1 + r.k % 6], r.event_timestamp, r.received_at,
            5 + r.k % 7, true, true, false,
            jsonb_build_object('customer', r.customer, 'n', r.k), jsonb_build_object('customer', r.customer, 'n', r.k + 1),
            '{}'::int8[], md5(r.id), 'fixture'
       FROM r CROSS JOIN (SELECT environment_id FROM journeys WHERE project_id = $1 AND id = $2) j`,
    [projectId, journeyId, options.prefix, options.firstTimestampMs, options.firstReceivedMs, count],
  );
  await db.query(
    `UPDATE journeys SET event_count = event_count + $3,
            last_event_at = greatest(last_event_at, timestamptz 'epoch' + ($4::float8 + ($3 - 1) * 1000) * interval '1 millisecond')
      WHERE project_id = $1 AND id = $2`,
    [projectId, journeyId, count, options.firstTimestampMs],
  );
}

/**
 * Gives the journey `count` more masked aliases of type `account` (what 1,000 aliases per event
 * over `count / 1000` events would store), all of one encrypted value: decrypting them costs what
 * distinct values would, and one encryption keeps the fixture fast.
 */
export async function addAliases(db: Queryable, keyring: Keyring, projectId: string, journeyId: string, count: number): Promise<void> {
  await db.query(
    `INSERT INTO journey_aliases (project_id, journey_id, alias_type, value_encrypted, token, token_key_id, displayable, display_value)
     SELECT $1, $2, 'account', $3, md5($2 || k), 'fixture', false, NULL FROM generate_series(1, $4::int) k`,
    [projectId, journeyId, encryptField(keyring, 'acct-0000000042'), count],
  );
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

const explain = (text: string) => (/^\s*SELECT\b/i.test(text) ? `EXPLAIN (ANALYZE, FORMAT JSON) ${text}` : text);
type Statement = string | { text: string; values?: unknown[] };
// A named statement is explained unnamed: its prepared plan would answer rows, not the plan.
const explained = (statement: Statement, values?: unknown[]): [string, unknown[] | undefined] =>
  typeof statement === 'string' ? [explain(statement), values] : [explain(statement.text), statement.values];

/**
 * The pool as a read sees it, except that each SELECT answers its EXPLAIN ANALYZE instead of its
 * rows: a read function called with it returns the plan of its own statement, planned in its own
 * transaction and settings (BEGIN, SET LOCAL and COMMIT pass through unchanged).
 */
export function explainingPool(pool: Pool): Pool {
  const explaining = {
    query: (text: Statement, values?: unknown[]) => pool.query(...explained(text, values)),
    async connect() {
      const client = await pool.connect();
      // The client's events too: a transaction's COMMIT listens for PostgreSQL's notices (src/db/pool.ts).
      return {
        query: (text: Statement, values?: unknown[]) => client.query(...explained(text, values)),
        release: (error?: Error) => client.release(error),
        on: client.on.bind(client),
        off: client.off.bind(client),
      };
    },
  };
  return explaining as unknown as Pool;
}

/** Rows each scan produced in a plan that explainingPool returned, summed over its loops, by relation. */
export function rowsScanned(planRows: readonly object[]): { total: number; byRelation: Record<string, number> } {
  const rows = planRows as Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>;
  const byRelation: Record<string, number> = {};
  let total = 0;
  const walk = (node: PlanNode) => {
    if (node['Node Type'].includes('Scan') && node['Relation Name'] !== undefined) {
      const scanned = (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 0);
      const name = node['Relation Name'];
      byRelation[name] = (byRelation[name] ?? 0) + scanned;
      total += scanned;
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(rows[0]!['QUERY PLAN'][0]!.Plan);
  return { total, byRelation };
}
