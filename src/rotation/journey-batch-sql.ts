// SQL of one journey rotation batch. Set-based: a handful of statements per batch whatever
// its size, arrays passed through unnest.

import type { Keyring } from '../crypto/keyring.ts';
import type { PoolClient } from '../db/pool.ts';
import { EVENT_TOKEN_KINDS, type SearchTokenKind } from '../protocol/search-token-kinds.ts';
import type { Cursor } from './journey-batch.ts';

export interface JourneyBatchRows {
  /** Journeys with something under the previous key, in key order (the next cursor is the last). */
  candidates: Cursor[];
  /** The candidates that still exist, locked. */
  journeys: Array<{ projectId: string; id: string; entityIdEncrypted: string }>;
  aliases: Array<{ projectId: string; journeyId: string; id: number; valueEncrypted: string; tokenKeyId: string }>;
  oldTokens: Array<{ projectId: string; journeyId: string; kind: SearchTokenKind; token: string }>;
  /** Distinct clear ids of the journeys' events, by token kind. */
  eventValues: Array<{ projectId: string; journeyId: string; kind: SearchTokenKind; value: string }>;
  /** Events whose trace and span token columns (migration 0022) are under the previous key, with their clear ids. */
  tokenedEvents: Array<{ projectId: string; id: string; traceId: string | null; spanId: string | null }>;
}

export interface JourneyWrites {
  entities: Array<{ projectId: string; id: string; stored: string }>;
  aliases: Array<{ projectId: string; journeyId: string; id: number; stored: string; token: string }>;
  oldTokens: Array<{ projectId: string; journeyId: string; kind: SearchTokenKind; token: string }>;
  newTokens: Array<{ projectId: string; journeyId: string; kind: SearchTokenKind; token: string }>;
  /** Token columns of event_ids, recomputed under the current key (null: no id, or a blank one). */
  eventTokens: Array<{ projectId: string; id: string; traceToken: string | null; spanToken: string | null }>;
}

// Each event-field kind is also the name of the events column holding its clear value.
const EVENT_VALUES = EVENT_TOKEN_KINDS.map((kind) => `('${kind}', e.${kind})`).join(', ');

const FIELD_KEY = (column: string) => `split_part(${column}, '.', 2)`;

export async function readJourneyBatch(client: PoolClient, previousKeyId: string, cursor: Cursor, limit: number): Promise<JourneyBatchRows> {
  // Keyset over the primary key: each batch continues where the last stopped, so a journey
  // whose values cannot be moved is not picked up again and the whole run reads each row once.
  const candidates = await client.query<Cursor>(
    `SELECT j.project_id AS "projectId", j.id FROM journeys j
      WHERE (j.project_id, j.id) > ($1::uuid, $2::text)
        AND (${FIELD_KEY('j.entity_id_encrypted')} = $3
             OR EXISTS (SELECT 1 FROM journey_aliases a WHERE a.project_id = j.project_id AND a.journey_id = j.id
                          AND (${FIELD_KEY('a.value_encrypted')} = $3 OR a.token_key_id = $3))
             OR EXISTS (SELECT 1 FROM search_tokens t WHERE t.project_id = j.project_id AND t.journey_id = j.id AND t.key_id = $3))
      ORDER BY j.project_id, j.id LIMIT $4`,
    [cursor.projectId, cursor.id, previousKeyId, limit],
  );
  const projectIds = candidates.rows.map((row) => row.projectId);
  const ids = candidates.rows.map((row) => row.id);
  const pairs = `unnest($1::uuid[], $2::text[]) AS u(project_id, journey_id)`;
  // Same lock order as ingestion (journey id in byte order), so the two never deadlock.
  const journeys = await client.query<{ projectId: string; id: string; entityIdEncrypted: string }>(
    `SELECT j.project_id AS "projectId", j.id, j.entity_id_encrypted AS "entityIdEncrypted"
       FROM journeys j JOIN ${pairs} ON j.project_id = u.project_id AND j.id = u.journey_id
      ORDER BY j.project_id, j.id COLLATE "C" FOR UPDATE OF j`,
    [projectIds, ids],
  );
  const aliases = await client.query<JourneyBatchRows['aliases'][number]>(
    `SELECT a.project_id AS "projectId", a.journey_id AS "journeyId", a.id, a.value_encrypted AS "valueEncrypted",
            a.token_key_id AS "tokenKeyId"
       FROM journey_aliases a JOIN ${pairs} ON a.project_id = u.project_id AND a.journey_id = u.journey_id`,
    [projectIds, ids],
  );
  const oldTokens = await client.query<JourneyBatchRows['oldTokens'][number]>(
    `SELECT t.project_id AS "projectId", t.journey_id AS "journeyId", t.kind, t.token
       FROM search_tokens t JOIN ${pairs} ON t.project_id = u.project_id AND t.journey_id = u.journey_id
      WHERE t.key_id = $3`,
    [projectIds, ids, previousKeyId],
  );
  // Only journeys that still have event-id tokens under the previous key need their events read.
  const withEventTokens = new Set(oldTokens.rows.filter((t) => (EVENT_TOKEN_KINDS as readonly string[]).includes(t.kind)).map((t) => `${t.projectId}\u0000${t.journeyId}`));
  const eventPairs = [...withEventTokens].map((key) => key.split('\u0000') as [string, string]);
  const eventValues =
    eventPairs.length === 0
      ? { rows: [] }
      : await client.query<JourneyBatchRows['eventValues'][number]>(
          `SELECT DISTINCT e.project_id AS "projectId", e.journey_id AS "journeyId", v.kind, v.value
             FROM events e JOIN ${pairs} ON e.project_id = u.project_id AND e.journey_id = u.journey_id
            CROSS JOIN LATERAL (VALUES ${EVENT_VALUES}) AS v(kind, value)
            WHERE v.value IS NOT NULL`,
          [eventPairs.map((p) => p[0]), eventPairs.map((p) => p[1])],
        );
  // A journey's token columns are never under an older key than its journey-id token row (both
  // are written under the key of the moment, and a batch moves both), so the candidates above
  // include every journey with event token columns to move.
  const tokenedEvents = await client.query<JourneyBatchRows['tokenedEvents'][number]>(
    `SELECT e.project_id AS "projectId", e.id, e.trace_id AS "traceId", e.span_id AS "spanId"
       FROM event_ids i JOIN ${pairs} ON i.project_id = u.project_id AND i.journey_id = u.journey_id
       JOIN events e ON e.project_id = i.project_id AND e.id = i.id AND e.received_at = i.received_at
      WHERE i.search_key_id = $3`,
    [projectIds, ids, previousKeyId],
  );
  return {
    candidates: candidates.rows,
    journeys: journeys.rows,
    aliases: aliases.rows,
    oldTokens: oldTokens.rows,
    eventValues: eventValues.rows,
    tokenedEvents: tokenedEvents.rows,
  };
}

export async function writeJourneyBatch(
  client: PoolClient,
  keyring: Keyring,
  writes: JourneyWrites,
): Promise<{ entities: number; aliases: number; tokens: number }> {
  const entities = await client.query(
    `UPDATE journeys j SET entity_id_encrypted = u.stored
       FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(project_id, id, stored)
      WHERE j.project_id = u.project_id AND j.id = u.id`,
    [writes.entities.map((e) => e.projectId), writes.entities.map((e) => e.id), writes.entities.map((e) => e.stored)],
  );
  // The (journey, type, token) uniqueness could only clash if a second row for the same value
  // exists already; that row is left alone rather than failing the whole batch.
  const aliases = await client.query(
    `UPDATE journey_aliases a SET value_encrypted = u.stored, token = u.token, token_key_id = $6
       FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::text[]) AS u(project_id, journey_id, id, stored, token)
      WHERE a.project_id = u.project_id AND a.journey_id = u.journey_id AND a.id = u.id
        AND NOT EXISTS (SELECT 1 FROM journey_aliases x
                         WHERE x.project_id = a.project_id AND x.journey_id = a.journey_id
                           AND x.alias_type = a.alias_type AND x.token = u.token AND x.id <> a.id)`,
    [
      writes.aliases.map((a) => a.projectId),
      writes.aliases.map((a) => a.journeyId),
      writes.aliases.map((a) => a.id),
      writes.aliases.map((a) => a.stored),
      writes.aliases.map((a) => a.token),
      keyring.currentKeyId,
    ],
  );
  const columns = (rows: JourneyWrites['oldTokens']) => [
    rows.map((t) => t.projectId),
    rows.map((t) => t.journeyId),
    rows.map((t) => t.kind),
    rows.map((t) => t.token),
  ];
  const tokenRows = `unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS u(project_id, journey_id, kind, token)`;
  const removed = await client.query(
    `DELETE FROM search_tokens t USING ${tokenRows}
      WHERE t.project_id = u.project_id AND t.token = u.token AND t.journey_id = u.journey_id AND t.kind = u.kind`,
    columns(writes.oldTokens),
  );
  // The value may already be indexed under the current key (ingested since the new key came in).
  await client.query(
    `INSERT INTO search_tokens (project_id, token, journey_id, kind, key_id)
     SELECT DISTINCT u.project_id, u.token, u.journey_id, u.kind, $5 FROM ${tokenRows}
     ON CONFLICT DO NOTHING`,
    [...columns(writes.newTokens), keyring.currentKeyId],
  );
  // Not counted apart: the columns move with their journey, as rotate:status counts them (rows only).
  const events = writes.eventTokens;
  await client.query(
    `UPDATE event_ids i SET trace_token = u.trace_token, span_token = u.span_token, search_key_id = $5
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS u(project_id, id, trace_token, span_token)
      WHERE i.project_id = u.project_id AND i.id = u.id`,
    [events.map((e) => e.projectId), events.map((e) => e.id), events.map((e) => e.traceToken), events.map((e) => e.spanToken), keyring.currentKeyId],
  );
  return { entities: entities.rowCount ?? 0, aliases: aliases.rowCount ?? 0, tokens: removed.rowCount ?? 0 };
}
