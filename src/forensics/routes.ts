// Journey forensics routes (docs/forensics.md). Same credentials, throttle, scope, masking and
// 404 rules as the journey read: they call the query capability's reads, never its SQL.
// `/v1/journeys/compare` is a static route: the router prefers it to `/v1/journeys/:journeyId`.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireReader, type AuthContext, type ReadScope } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { errors } from '../http/errors.ts';
import { parseQuery } from '../http/query.ts';
import { getJourneyDetail } from '../query/details.ts';
import { readJourneyPayloads, type JourneyPayloads } from '../query/journey-payloads.ts';
import { compareJourneys } from './compare-journeys.ts';
import { parseFieldPath } from './field-path.ts';
import { followField } from './follow-field.ts';
import { listJourneyChanges } from './journey-changes.ts';
import { MAX_FORENSICS_EVENTS, MAX_JOURNEY_ID_CODE_POINTS } from './limits.ts';

export function registerForensicsRoutes(app: FastifyInstance, deps: { auth: AuthContext; keyring: Keyring }): void {
  const db = deps.auth.db;
  const url = (request: FastifyRequest) => request.raw.url ?? '';
  const reader = (request: FastifyRequest): Promise<ReadScope> => requireReader(request, deps.auth);
  const journey = async (scope: ReadScope, id: string): Promise<JourneyPayloads> => {
    const read = readableId(id) ? await readJourneyPayloads(db, scope, id, MAX_FORENSICS_EVENTS) : null;
    if (read === null) throw errors.notFound('The journey was not found.');
    return read;
  };

  app.get<{ Params: { journeyId: string } }>('/v1/journeys/:journeyId/fields', async (request) => {
    const scope = await reader(request);
    const path = parseQuery(url(request), ['path'] as const).path ?? '';
    const segments = parseFieldPath(path);
    if (typeof segments === 'string') throw errors.invalidQuery('path', segments);
    const events = await journey(scope, request.params.journeyId);
    return { data: { journeyId: request.params.journeyId, path, ...followField(events, segments) } };
  });

  app.get<{ Params: { journeyId: string } }>('/v1/journeys/:journeyId/changes', async (request) => {
    const scope = await reader(request);
    parseQuery(url(request), []);
    const events = await journey(scope, request.params.journeyId);
    return { data: { journeyId: request.params.journeyId, ...listJourneyChanges(events) } };
  });

  app.get('/v1/journeys/compare', async (request) => {
    const scope = await reader(request);
    const query = parseQuery(url(request), ['a', 'b'] as const);
    for (const name of ['a', 'b'] as const) {
      if ((query[name] ?? '') === '') throw errors.invalidQuery(name, `${name} is required: a journey id.`);
    }
    const [a, b] = [query.a!, query.b!];
    const [eventsA, eventsB] = [await journey(scope, a), await journey(scope, b)];
    // The journey read itself: alias values masked as it masks them.
    const [journeyA, journeyB] = [await getJourneyDetail(db, deps.keyring, scope, a), await getJourneyDetail(db, deps.keyring, scope, b)];
    if (journeyA === null || journeyB === null) throw errors.notFound('The journey was not found.');
    const truncated = { a: eventsA.truncated, b: eventsB.truncated };
    return { data: { a: journeyA, b: journeyB, truncated, ...compareJourneys(eventsA, eventsB) } };
  });
}

/** A path or query id the database could hold; anything else is simply not found. */
function readableId(id: string): boolean {
  return !id.includes('\u0000') && [...id].length <= MAX_JOURNEY_ID_CODE_POINTS;
}
