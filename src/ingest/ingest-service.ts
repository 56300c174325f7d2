import type { Logger } from 'pino';
import type { Keyring } from '../crypto/keyring.ts';
import { isDatabaseUnavailable, isStatementTimeout, withTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import { AppError } from '../http/errors.ts';
import { workSlicer } from '../runtime/work-slices.ts';
import type { EnvironmentRow } from '../projects/environments-sql.ts';
import type { KeyFreshness } from '../rotation/key-mismatch.ts';
import { getEventDetail, getJourneyDetail } from '../query/details.ts';
import { prepareEvent, type PrepareContext, type Refusal } from './prepare.ts';
import type { MicrosClock } from './received-clock.ts';
import type { StatisticsWarmup } from './statistics-warmup.ts';
import { ConcurrentWriteError, storeEvents, type StoreInput, type StoreVerdict } from './store.ts';

export interface IngestDeps {
  pool: Pool;
  keyring: Keyring;
  logger: Logger;
  micros: MicrosClock;
  allowFullPayloadCapture: boolean;
  maxEventPayloadBytes: number;
  warmup?: StatisticsWarmup;
  /** Refuses ingestion (503 key_superseded) once a rotation replaced this process's key. */
  keyFreshness?: KeyFreshness;
  /** How long a batch's preparation runs before it hands the event loop back; PREPARE_SLICE_MS by default. */
  prepareSliceMs?: number;
}

/**
 * Preparing a 100-event batch takes about 9 ms of CPU on a quiet machine: done in slices of
 * this length, requests that wait for the event loop meanwhile (a search, the list, another
 * batch's next statement) go in between instead of after the whole batch.
 */
export const PREPARE_SLICE_MS = 2;

/** A process on a rotated-away key would hash, tokenize and encrypt under the outgoing key. */
export async function refuseSupersededKey(deps: IngestDeps): Promise<void> {
  if (deps.keyFreshness !== undefined && (await deps.keyFreshness.superseded())) {
    throw new AppError('key_superseded', 'This server runs on an encryption key that a rotation replaced; send the events to an instance with the new key, or retry later.');
  }
}

export interface IngestScope {
  projectId: string;
  environment: EnvironmentRow;
}

export type EventResult =
  | { eventId: string | null; status: 'accepted'; duplicate: boolean; journeyId: string; stored?: { event: unknown; journey: unknown } }
  | { eventId: string | null; status: 'rejected'; error: Refusal };

/** Concurrent creators of one journey or event id: the loser re-reads and tries again. */
const MAX_ATTEMPTS = 5;
const UNIQUE_VIOLATION = '23505';

export function storageFailure(error: unknown, route: 'batch' | 'single'): Refusal {
  if (isStatementTimeout(error)) {
    return { code: 'query_timeout', message: 'The statement timed out; resend this event.' };
  }
  // A single event's request is the event: a database that cannot be reached is the service's
  // outage, answered as on every route (503 database_unavailable, Retry-After) so clients retry.
  if (route === 'single' && isDatabaseUnavailable(error)) {
    return { code: 'database_unavailable', message: 'The service cannot reach its database; retry shortly.' };
  }
  return route === 'batch'
    ? { code: 'storage_error', message: 'The event could not be stored; resend it.' }
    : { code: 'internal_error', message: 'An unexpected error occurred.' };
}

export function prepareContext(deps: IngestDeps, scope: IngestScope): PrepareContext {
  const env = scope.environment;
  return {
    keyring: deps.keyring,
    environmentName: env.name,
    capture: { captureMode: env.captureMode, redactionPaths: env.redactionPaths, captureAllowlist: env.captureAllowlist },
    allowFullPayloadCapture: deps.allowFullPayloadCapture,
    maxEventPayloadBytes: deps.maxEventPayloadBytes,
  };
}

export function toResult(verdict: StoreVerdict): EventResult {
  return verdict.status === 'accepted'
    ? { eventId: verdict.eventId, status: 'accepted', duplicate: verdict.duplicate, journeyId: verdict.journeyId }
    : { eventId: verdict.eventId, status: 'rejected', error: verdict.refusal };
}

/**
 * Stores the inputs in one transaction, retried when a concurrent writer won a race.
 * `committing` is called once the statements are done and only the COMMIT (on a durable
 * database, its flush to disk) is left, so a caller may start its next transaction meanwhile.
 */
export async function storeWithRetry(deps: IngestDeps, scope: IngestScope, inputs: StoreInput[], committing?: () => void): Promise<StoreVerdict[]> {
  const storeScope = { projectId: scope.projectId, environmentId: scope.environment.id };
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(deps.pool, async (client) => {
        const verdicts = await storeEvents(client, deps.keyring, storeScope, inputs);
        committing?.();
        return verdicts;
      });
    } catch (error) {
      const retriable = error instanceof ConcurrentWriteError || (error as { code?: string }).code === UNIQUE_VIOLATION;
      if (!retriable || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

/**
 * A real send: every event is prepared in memory, then the accepted ones are stored in one
 * transaction. When that transaction fails, each event is stored on its own so that one
 * failing event never spoils its batch and every event still gets its own verdict.
 */
export async function ingestEvents(
  deps: IngestDeps,
  scope: IngestScope,
  envelopes: unknown[],
  route: 'batch' | 'single',
): Promise<EventResult[]> {
  await refuseSupersededKey(deps);
  const ctx = prepareContext(deps, scope);
  const results: Array<EventResult | null> = [];
  const pending: Array<{ index: number; input: StoreInput }> = [];
  const pause = workSlicer(deps.prepareSliceMs ?? PREPARE_SLICE_MS);
  for (const envelope of envelopes) {
    await pause();
    const receivedAtUs = deps.micros();
    const preparation = prepareEvent(envelope, ctx);
    if (preparation.ok) {
      pending.push({ index: results.length, input: { prepared: preparation.prepared, receivedAtUs } });
      results.push(null);
    } else {
      results.push({ eventId: preparation.eventId, status: 'rejected', error: preparation.refusal });
    }
  }
  if (pending.length > 0) {
    try {
      const verdicts = await storeWithRetry(deps, scope, pending.map((p) => p.input));
      verdicts.forEach((verdict, i) => (results[pending[i]!.index] = toResult(verdict)));
      deps.warmup?.record(verdicts.filter((v) => v.status === 'accepted' && !v.duplicate).length);
    } catch {
      for (const { index, input } of pending) {
        try {
          const [verdict] = await storeWithRetry(deps, scope, [input]);
          results[index] = toResult(verdict!);
        } catch (error) {
          deps.logger.warn({ err: { code: (error as { code?: string }).code } }, 'event could not be stored');
          results[index] = { eventId: input.prepared.event.id, status: 'rejected', error: storageFailure(error, route) };
        }
      }
    }
  }
  return results as EventResult[];
}

/**
 * A dry run (event protocol 8.5): the real pipeline in one transaction with a savepoint per
 * event, each accepted event read back as the read routes would show it, then rolled back.
 */
export async function dryRunEvents(deps: IngestDeps, scope: IngestScope, envelopes: unknown[]): Promise<EventResult[]> {
  await refuseSupersededKey(deps);
  const ctx = prepareContext(deps, scope);
  const storeScope = { projectId: scope.projectId, environmentId: scope.environment.id };
  const readScope = { projectId: scope.projectId, environmentId: scope.environment.id };
  const client: PoolClient = await deps.pool.connect();
  const results: EventResult[] = [];
  try {
    await client.query('BEGIN');
    for (const envelope of envelopes) {
      const receivedAtUs = deps.micros();
      const preparation = prepareEvent(envelope, ctx);
      if (!preparation.ok) {
        results.push({ eventId: preparation.eventId, status: 'rejected', error: preparation.refusal });
        continue;
      }
      await client.query('SAVEPOINT event');
      try {
        const [verdict] = await storeEvents(client, deps.keyring, storeScope, [{ prepared: preparation.prepared, receivedAtUs }]);
        const result = toResult(verdict!);
        if (result.status === 'accepted' && !result.duplicate) {
          const event = await getEventDetail(client, deps.keyring, readScope, result.eventId!);
          const journey = await getJourneyDetail(client, deps.keyring, readScope, result.journeyId);
          const { receivedAt: _omitted, ...eventWithoutReceivedAt } = event!;
          result.stored = { event: eventWithoutReceivedAt, journey };
        }
        await client.query('RELEASE SAVEPOINT event');
        results.push(result);
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT event');
        results.push({ eventId: preparation.prepared.event.id, status: 'rejected', error: storageFailure(error, 'batch') });
      }
    }
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
  return results;
}
