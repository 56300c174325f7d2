import type { FastifyInstance, FastifyRequest } from 'fastify';
import { codePointLength, hasNul } from '../protocol/identifiers.ts';
import { requireReader, type AuthContext, type ReadScope } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { errors } from '../http/errors.ts';
import { parseQuery } from '../http/query.ts';
import { getEventDetail, getJourneyDetail } from './details.ts';
import { listJourneys, searchJourneys, type ReadDeps } from './journeys.ts';
import {
  LIST_PARAMETERS,
  SEARCH_PARAMETERS,
  TIMELINE_PARAMETERS,
  parseListParams,
  parseSearchParams,
  parseTimelineParams,
} from './params.ts';
import { listJourneyEvents } from './timeline.ts';

/** Longest id the read routes accept (journey and event ids are at most 128 code points). */
const MAX_ID_LENGTH = 128;

/** A path id the database could hold; anything else is simply not found (section 7). */
function readablePathId(id: string): boolean {
  return !hasNul(id) && codePointLength(id) <= MAX_ID_LENGTH;
}

/**
 * Every read route checks the credential first, then the query string (docs/decisions.md,
 * "Authentication order"), then reads within the scope the credential allows.
 */
export function registerReadRoutes(app: FastifyInstance, deps: { auth: AuthContext; keyring: Keyring }): void {
  const read: ReadDeps = { db: deps.auth.db, keyring: deps.keyring };
  const url = (request: FastifyRequest) => request.raw.url ?? '';
  const reader = (request: FastifyRequest): Promise<ReadScope> => requireReader(request, deps.auth);

  app.get('/v1/search', async (request) => {
    const scope = await reader(request);
    const params = parseSearchParams(parseQuery(url(request), SEARCH_PARAMETERS), deps.auth.now());
    return { data: await searchJourneys(read, scope, params) };
  });

  app.get('/v1/journeys', async (request) => {
    const scope = await reader(request);
    const params = parseListParams(parseQuery(url(request), LIST_PARAMETERS), deps.auth.now());
    return { data: await listJourneys(read, scope, params) };
  });

  app.get<{ Params: { journeyId: string } }>('/v1/journeys/:journeyId', async (request) => {
    const scope = await reader(request);
    parseQuery(url(request), []);
    const id = request.params.journeyId;
    const journey = readablePathId(id) ? await getJourneyDetail(read.db, read.keyring, scope, id) : null;
    if (!journey) throw errors.notFound('The journey was not found.');
    return { data: journey };
  });

  app.get<{ Params: { journeyId: string } }>('/v1/journeys/:journeyId/events', async (request) => {
    const scope = await reader(request);
    const params = parseTimelineParams(parseQuery(url(request), TIMELINE_PARAMETERS));
    const id = request.params.journeyId;
    const page = readablePathId(id) ? await listJourneyEvents(read, scope, id, params) : null;
    if (!page) throw errors.notFound('The journey was not found.');
    return { data: page };
  });

  app.get<{ Params: { eventId: string } }>('/v1/events/:eventId', async (request) => {
    const scope = await reader(request);
    parseQuery(url(request), []);
    const id = request.params.eventId;
    const event = readablePathId(id) ? await getEventDetail(read.db, read.keyring, scope, id) : null;
    if (!event) throw errors.notFound('The event was not found.');
    return { data: event };
  });
}
