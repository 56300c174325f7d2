// Batch replays of a problem (docs/problems.md, "Verifying a fix by replay"): the functions the
// routes and the CLI share. Starting stores the batch and its journeys; a worker runs it
// (runner.ts); cancelling stops new replays while those in flight finish.

import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { CLI_ACTOR, writeAudit, type AuditActor } from '../audit/audit-log.ts';
import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import { AppError, errors } from '../http/errors.ts';
import { isUuid } from '../protocol/identifiers.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { findDestination } from '../replay/destinations.ts';
import { cancelBatchRow, insertBatch, selectBatch, selectBatches, selectReplayTarget, selectProjectOf, selectResults, type BatchRow, type NewBatch, type ResultRow } from './batches-sql.ts';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_JOURNEYS,
  DEFAULT_RATE_PER_SECOND,
  MAX_CONCURRENCY,
  MAX_JOURNEYS,
  MAX_RATE_PER_SECOND,
  MIN_RATE_PER_SECOND,
} from './limits.ts';

export const batchBodySchema = z.strictObject({
  destinationId: z.string().refine(isUuid, 'must be a uuid').transform((value) => value.toLowerCase()),
  journeys: z.int().min(1).max(MAX_JOURNEYS).default(DEFAULT_JOURNEYS),
  ratePerSecond: z.number().min(MIN_RATE_PER_SECOND).max(MAX_RATE_PER_SECOND).default(DEFAULT_RATE_PER_SECOND),
  concurrency: z.int().min(1).max(MAX_CONCURRENCY).default(DEFAULT_CONCURRENCY),
});
export type BatchInput = z.output<typeof batchBodySchema>;

/** 400 invalid_request naming the first field that is out of its bounds. */
export function parseBatchInput(body: unknown): BatchInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.invalidRequest('', 'The body must be a JSON object.');
  const parsed = batchBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw errors.invalidRequest(issue.path.join('.'), `The body is not a valid batch replay: ${issue.path.join('.') || 'body'} ${issue.message}.`);
  }
  return parsed.data;
}

/** The batch's actor as the contract shows it: a person by id and e-mail, the admin token, the CLI. */
function actorColumns(actor: AuditActor): NewBatch['actor'] {
  if (actor.kind === 'user') return { type: 'user', id: actor.userId, name: actor.email };
  if (actor.kind === 'cli') return { type: 'cli', id: null, name: null };
  return { type: 'admin_token', id: null, name: null };
}

const at = (date: Date | null) => (date === null ? null : formatTimestamp(date.getTime()));

export function batchView(row: BatchRow) {
  return {
    id: row.id,
    problemId: row.problem_id,
    destinationId: row.destination_id,
    destinationName: row.destination_name,
    status: row.status,
    requested: row.requested,
    completed: row.kept + row.still_lost + row.failed,
    counts: { kept: row.kept, stillLost: row.still_lost, failed: row.failed },
    ratePerSecond: Number(row.rate_per_second),
    concurrency: row.concurrency,
    actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
    createdAt: at(row.created_at)!,
    finishedAt: at(row.finished_at),
  };
}
export type BatchView = ReturnType<typeof batchView>;

export function resultView(row: ResultRow) {
  return {
    journeyId: row.journey_id,
    verdict: row.verdict,
    replayId: row.replay_id,
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    finishedAt: at(row.finished_at),
  };
}
export type ResultView = ReturnType<typeof resultView>;

/**
 * Stores the batch with its journeys and its audit row in one transaction. Refused before
 * anything is stored: an unknown problem or destination (404), a problem other than a lost or
 * changed field (400), a disabled destination (409 destination_disabled).
 */
export async function startProblemReplay(pool: Pool, projectId: string, problemId: string, input: BatchInput, actor: AuditActor = CLI_ACTOR, now = new Date()): Promise<BatchView> {
  const target = isUuid(problemId) ? await selectReplayTarget(pool, projectId, problemId.toLowerCase()) : null;
  if (target === null) throw errors.notFound('The problem was not found.');
  if ((target.kind !== 'lost' && target.kind !== 'changed') || target.path === null || target.service === null) {
    throw errors.invalidRequest('problemId', 'Only a lost or changed field can be verified by replay.');
  }
  const destination = await findDestination(pool, projectId, input.destinationId);
  if (destination === null) throw errors.notFound('The replay destination was not found.');
  if (destination.disabled) throw new AppError('destination_disabled', 'The replay destination is disabled.');
  const id = randomUUID();
  await withTransaction(pool, async (client) => {
    const requested = await insertBatch(client, projectId, {
      id,
      problemId: problemId.toLowerCase(),
      destinationId: destination.id,
      journeys: input.journeys,
      ratePerSecond: input.ratePerSecond,
      concurrency: input.concurrency,
      actor: actorColumns(actor),
      createdAt: now,
    }, target);
    // The audit row names the batch, problem and destination by id and counts; never a journey.
    await writeAudit(client, projectId, 'problem_replay.started', {
      batchId: id, problemId: problemId.toLowerCase(), destinationId: destination.id, journeys: requested, ratePerSecond: input.ratePerSecond, concurrency: input.concurrency,
    }, actor);
  });
  return (await getProblemReplay(pool, projectId, id))!;
}

export async function getProblemReplay(db: Queryable, projectId: string, batchId: string): Promise<BatchView | null> {
  if (!isUuid(batchId)) return null;
  const row = await selectBatch(db, projectId, batchId.toLowerCase());
  return row === null ? null : batchView(row);
}

/** Cancels a running batch with its audit row; a finished one is answered unchanged. */
export async function cancelProblemReplay(pool: Pool, projectId: string, batchId: string, actor: AuditActor = CLI_ACTOR, now = new Date()): Promise<BatchView | null> {
  if (!isUuid(batchId)) return null;
  const id = batchId.toLowerCase();
  await withTransaction(pool, async (client) => {
    if (await cancelBatchRow(client, projectId, id, now)) await writeAudit(client, projectId, 'problem_replay.cancelled', { batchId: id }, actor);
  });
  return getProblemReplay(pool, projectId, id);
}

/** A page of a problem's batches, newest first; null for an unknown problem. */
export async function listProblemReplays(db: Queryable, projectId: string, problemId: string, after: { createdAt: Date; id: string } | null, limit: number): Promise<{ items: BatchView[]; more: boolean } | null> {
  if (!isUuid(problemId) || (await selectReplayTarget(db, projectId, problemId.toLowerCase())) === null) return null;
  const rows = await selectBatches(db, projectId, problemId.toLowerCase(), after, limit + 1);
  return { items: rows.slice(0, limit).map(batchView), more: rows.length > limit };
}

export const VERDICTS = ['pending', 'kept', 'still_lost', 'failed'] as const;

/** A page of a batch's results in journey order; `after` is the ordinal of the previous page's last. */
export async function listProblemReplayResults(db: Queryable, projectId: string, batchId: string, verdict: string | null, after: number, limit: number) {
  const rows = await selectResults(db, projectId, batchId.toLowerCase(), verdict, after, limit + 1);
  const page = rows.slice(0, limit);
  return { items: page.map(resultView), lastOrdinal: page.at(-1)?.ordinal ?? null, more: rows.length > limit };
}

/** The project of a problem or batch id, for the CLI; null when unknown. */
export async function projectOfProblem(db: Queryable, problemId: string): Promise<string | null> {
  return isUuid(problemId) ? selectProjectOf(db, 'problems', problemId.toLowerCase()) : null;
}
export async function projectOfBatch(db: Queryable, batchId: string): Promise<string | null> {
  return isUuid(batchId) ? selectProjectOf(db, 'problem_replays', batchId.toLowerCase()) : null;
}
