import type { FastifyInstance } from 'fastify';
import { requireReader, type AuthContext } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { errors } from '../http/errors.ts';
import { parseQuery } from '../http/query.ts';
import { getEventDetail, getJourneyDetail } from './details.ts';

/** Longest id the read routes accept (journey and event ids are at most 128 code points). */
const MAX_ID_LENGTH = 128;

function readablePathId(id: string): boolean {
  return !id.includes('\u0000') && [...id].length <= MAX_ID_LENGTH;
}

export function registerReadRoutes(app: FastifyInstance, deps: { auth: AuthContext; keyring: Keyring }): void {
  app.get<{ Params: { journeyId: string } }>('/v1/journeys/:journeyId', async (request) => {
    const scope = await requireReader(request, deps.auth);
    parseQuery(request.raw.url ?? '', []);
    const id = request.params.journeyId;
    const journey = readablePathId(id) ? await getJourneyDetail(deps.auth.db, deps.keyring, scope, id) : null;
    if (!journey) throw errors.notFound('The journey was not found.');
    return { data: journey };
  });

  app.get<{ Params: { eventId: string } }>('/v1/events/:eventId', async (request) => {
    const scope = await requireReader(request, deps.auth);
    parseQuery(request.raw.url ?? '', []);
    const id = request.params.eventId;
    const event = readablePathId(id) ? await getEventDetail(deps.auth.db, deps.keyring, scope, id) : null;
    if (!event) throw errors.notFound('The event was not found.');
    return { data: event };
  });
}
