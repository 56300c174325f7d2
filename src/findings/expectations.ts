// Expectations as the routes and the CLI use them: one validation, one save, one suggestion.

import type { Queryable } from '../db/pool.ts';
import { expectationInputSchema, type Expectation } from './expectation-input.ts';
import { deleteExpectation, selectExpectations, upsertExpectation, type StoredExpectation } from './expectations-sql.ts';
import { suggestExpectation, type Suggestion } from './suggest.ts';
import { selectCompletedJourneySteps } from './summary-sql.ts';

export type { Expectation, StoredExpectation, Suggestion };
export { deleteExpectation, selectExpectations as listExpectations };

/** The expectation, or the path and reason of its first problem. */
export function parseExpectation(body: unknown): { ok: true; value: Expectation } | { ok: false; path: string } {
  const parsed = expectationInputSchema.safeParse(body);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, path: parsed.error.issues[0]!.path.join('.') };
}

/** Saves it; the entity type's journeys are analysed again against it. */
export async function saveExpectation(db: Queryable, projectId: string, entityType: string, expectation: Expectation): Promise<StoredExpectation> {
  return upsertExpectation(db, projectId, entityType, expectation);
}

export async function suggestFromHistory(db: Queryable, projectId: string, entityType: string, journeys: number): Promise<Suggestion> {
  return suggestExpectation(await selectCompletedJourneySteps(db, projectId, entityType, journeys));
}
