// Journey forensics routes (docs/forensics.md). Same credentials, throttle, scope, masking and
// 404 rules as the journey read: they call the query capability's reads, never its SQL.
// `/v1/journeys/compare` is a static route: the router prefers it to `/v1/journeys/:journeyId`.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireReader, type AuthContext, type ReadScope } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { errors } from '../http/errors.ts';
import { dataOf, recordSchema } from '../http/answers.ts';
import { defineRoute } from '../http/route-contract.ts';
import { getJourneyDetail } from '../query/details.ts';
import { readJourneyPayloads, type JourneyPayloads } from '../query/journey-payloads.ts';
import { compareJourneys } from './compare-journeys.ts';
import { parseFieldPath } from './field-path.ts';
import { followField } from './follow-field.ts';
import { listJourneyChanges } from './journey-changes.ts';
import { MAX_FORENSICS_EVENTS, MAX_JOURNEY_ID_CODE_POINTS } from './limits.ts';

export function registerForensicsRoutes(app: FastifyInstance, deps: { auth: AuthContext; keyring: Keyring }): void {
  const db = deps.auth.db;
  const reader = (request: FastifyRequest): Promise<ReadScope> => requireReader(request, deps.auth);
  const journey = async (scope: ReadScope, id: string): Promise<JourneyPayloads> => {
    const read = readableId(id) ? await readJourneyPayloads(db, scope, id, MAX_FORENSICS_EVENTS) : null;
    if (read === null) throw errors.notFound('The journey was not found.');
    return read;
  };

  const contract = {
    credential: reader,
    security: ['apiKey', 'adminToken'],
    tag: 'forensics',
    answers: { 200: { description: 'The forensics answer.', schema: dataOf(recordSchema) } },
    errors: ['unauthorized', 'too_many_attempts', 'project_not_found', 'invalid_query', 'bad_url', 'not_found', 'query_timeout', 'internal_error'],
  } as const;

  defineRoute(app, {
    method: 'GET',
    url: '/v1/journeys/:journeyId/fields',
    contract: { ...contract, summary: 'Follow one field through a journey', query: { path: 'The field path, e.g. customer.phone.' } },
    handler: async (request, _reply, { credential, query }) => {
      const journeyId = (request.params as { journeyId: string }).journeyId;
      const path = query.path ?? '';
      const segments = parseFieldPath(path);
      if (typeof segments === 'string') throw errors.invalidQuery('path', segments);
      const events = await journey(credential, journeyId);
      return { data: { journeyId, path, ...followField(events, segments) } };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/journeys/:journeyId/changes',
    contract: { ...contract, summary: 'What changed along a journey', query: {} },
    handler: async (request, _reply, { credential }) => {
      const journeyId = (request.params as { journeyId: string }).journeyId;
      const events = await journey(credential, journeyId);
      return { data: { journeyId, ...listJourneyChanges(events) } };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/journeys/compare',
    contract: { ...contract, summary: 'Compare two journeys', query: { a: 'A journey id.', b: 'Another journey id.' } },
    handler: async (_request, _reply, { credential: scope, query }) => {
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
    },
  });
}

/** A path or query id the database could hold; anything else is simply not found. */
function readableId(id: string): boolean {
  return !id.includes('\u0000') && [...id].length <= MAX_JOURNEY_ID_CODE_POINTS;
}
