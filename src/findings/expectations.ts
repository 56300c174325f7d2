// Expectations as the routes and the CLI use them: one validation, one save, one suggestion.

import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import { issueDetails } from '../http/body-fields.ts';
import type { ErrorDetail } from '../http/errors.ts';
import { expectationInputSchema, type Expectation } from './expectation-input.ts';
import { deleteExpectation as deleteStored, selectExpectations, upsertExpectation, type StoredExpectation } from './expectations-sql.ts';
import { suggestExpectation, type Suggestion } from './suggest.ts';
import { selectCompletedJourneySteps } from './summary-sql.ts';

export type { Expectation, StoredExpectation, Suggestion };
export { selectExpectations as listExpectations };

/** The expectation, or the path and reason of its first problem. */
export function parseExpectation(body: unknown): { ok: true; value: Expectation } | { ok: false; path: string; details: ErrorDetail[] } {
  const parsed = expectationInputSchema.safeParse(body);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, path: parsed.error.issues[0]!.path.join('.'), details: issueDetails(parsed.error.issues) };
}

/**
 * Saves it; the entity type's journeys are analysed again against it. One transaction: the
 * expectation and the marks of its journeys commit together, or neither does.
 */
export async function saveExpectation(pool: Pool, projectId: string, entityType: string, expectation: Expectation): Promise<StoredExpectation> {
  return withTransaction(pool, (client) => upsertExpectation(client, projectId, entityType, expectation));
}

/** Removes it, in one transaction as a save; false when the entity type had none. */
export async function deleteExpectation(pool: Pool, projectId: string, entityType: string): Promise<boolean> {
  return withTransaction(pool, (client) => deleteStored(client, projectId, entityType));
}

export async function suggestFromHistory(db: Queryable, projectId: string, entityType: string, journeys: number): Promise<Suggestion> {
  return suggestExpectation(await selectCompletedJourneySteps(db, projectId, entityType, journeys));
}
