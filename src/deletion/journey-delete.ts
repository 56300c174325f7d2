import { CLI_ACTOR, writeAudit, type AuditActor } from '../audit/audit-log.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { errors } from '../http/errors.ts';
import { deleteJourneyRow, liftStatementTimeout } from './deletion-sql.ts';
import { codePointLength, hasNul } from '../protocol/identifiers.ts';
import { MAX_JOURNEY_ID_LENGTH } from './limits.ts';

export interface DeletedJourney {
  environment: string;
  eventCount: number;
}

/** Delete journey's own id rule: NUL or over 128 code points is 400 invalid_request (decisions, HTTP details). */
export function assertDeletableJourneyId(journeyId: string): void {
  if (hasNul(journeyId)) throw errors.invalidRequest('journeyId', 'The journey id holds a NUL character.');
  if (codePointLength(journeyId) > MAX_JOURNEY_ID_LENGTH) {
    throw errors.invalidRequest('journeyId', `The journey id is longer than ${MAX_JOURNEY_ID_LENGTH} characters.`);
  }
}

/**
 * Deletes one journey and (by cascade) its events, aliases, search tokens and the replay runs
 * of its events, with its `journey.deleted` row, in one transaction without statement timeout.
 * Throws 404 not_found when the project has no such journey.
 */
export async function deleteJourney(pool: Pool, projectId: string, journeyId: string, actor: AuditActor = CLI_ACTOR): Promise<DeletedJourney> {
  assertDeletableJourneyId(journeyId);
  return withTransaction(pool, async (client) => {
    await liftStatementTimeout(client);
    const deleted = await deleteJourneyRow(client, projectId, journeyId);
    if (!deleted) throw errors.notFound('The journey was not found.');
    await writeAudit(client, projectId, 'journey.deleted', {
      journeyId,
      environment: deleted.environment,
      eventCount: deleted.eventCount,
    }, actor);
    return deleted;
  });
}
