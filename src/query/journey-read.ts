// The journey read (GET /v1/journeys/:journeyId) as routes answer it: the route itself, and the
// static paths beside it (`compare`, the interface's `activity`) that answer it for the journey
// their path would otherwise hide.
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import { errors } from '../http/errors.ts';
import { codePointLength, hasNul } from '../protocol/identifiers.ts';
import { getJourneyDetail, type DetailScope } from './details.ts';

/** Longest id the read routes accept (journey and event ids are at most 128 code points). */
const MAX_ID_LENGTH = 128;

/** A path id the database could hold; anything else is simply not found (section 7). */
export function readablePathId(id: string): boolean {
  return !hasNul(id) && codePointLength(id) <= MAX_ID_LENGTH;
}

/** The journey in the caller's scope; 404 not_found otherwise. */
export async function readJourneyOrNotFound(db: Queryable, keyring: Keyring, scope: DetailScope, journeyId: string) {
  const journey = readablePathId(journeyId) ? await getJourneyDetail(db, keyring, scope, journeyId) : null;
  if (!journey) throw errors.notFound('The journey was not found.');
  return journey;
}
