import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireReader, requireReaderConfirmedByRead, type AuthContext, type ReadScope } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import type { StaleReads } from '../http/read-routing.ts';
import { errors } from '../http/errors.ts';
import { dataOf, pageOf } from '../http/answers.ts';
import { journeyDetailSchema, journeyEventRowSchema, journeySummarySchema, storedEventSchema } from '../http/answer-schemas/reads.ts';
import { afterCredential, defineRoute } from '../http/route-contract.ts';
import { getEventDetail } from './details.ts';
import { readJourneyOrNotFound, readablePathId } from './journey-read.ts';
import type { CommonTrigramSource } from './common-trigrams.ts';
import { listJourneys, searchJourneys, type ReadDeps } from './journeys.ts';
import {
  LIST_QUERY,
  SEARCH_QUERY,
  TIMELINE_QUERY,
  parseListParams,
  parseSearchParams,
  parseTimelineParams,
} from './params.ts';
import { listJourneyEvents } from './timeline.ts';

/**
 * Every read route checks the credential first, then the query string (docs/decisions.md,
 * "Authentication order"), then reads within the scope the credential allows.
 */
export function registerReadRoutes(
  app: FastifyInstance,
  deps: { auth: AuthContext; pool: Pool; keyring: Keyring; commonTrigrams: CommonTrigramSource; staleReads?: StaleReads },
): void {
  const read: ReadDeps = { db: deps.auth.db, keyring: deps.keyring, commonTrigrams: deps.commonTrigrams };
  // Search and the list tolerate a little staleness: a replica in sync may answer them.
  const staleRead = (request: FastifyRequest): ReadDeps => (deps.staleReads ? { ...read, db: deps.staleReads(request) } : read);
  const reader = {
    credential: (request: FastifyRequest): Promise<ReadScope> => requireReader(request, deps.auth),
    security: ['apiKey', 'adminToken'],
    tag: 'read',
  } as const;
  // Search and the list confirm an API key in their own statement: one round trip per request.
  const confirmingReader = { ...reader, credential: (request: FastifyRequest): Promise<ReadScope> => requireReaderConfirmedByRead(request, deps.auth) };
  const readErrors = ['unauthorized', 'too_many_attempts', 'project_not_found', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'] as const;

  defineRoute(app, {
    method: 'GET',
    url: '/v1/search',
    contract: { ...confirmingReader, summary: 'Find journeys by an exact identifier', query: SEARCH_QUERY, answers: { 200: { description: 'A page of journey summaries.', schema: dataOf(pageOf(journeySummarySchema)) } }, errors: [...readErrors, 'invalid_cursor'] },
    handler: async (request, _reply, { credential, query }) => ({
      data: await searchJourneys(staleRead(request), credential, await afterCredential(credential, () => parseSearchParams(query, deps.auth.now()))),
    }),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/journeys',
    contract: { ...confirmingReader, summary: 'List journeys', query: LIST_QUERY, answers: { 200: { description: 'A page of journey summaries.', schema: dataOf(pageOf(journeySummarySchema)) } }, errors: [...readErrors, 'invalid_cursor'] },
    handler: async (request, _reply, { credential, query }) => ({
      data: await listJourneys(staleRead(request), credential, await afterCredential(credential, () => parseListParams(query, deps.auth.now()))),
    }),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/journeys/:journeyId',
    contract: { ...reader, summary: 'Get a journey', query: {}, answers: { 200: { description: 'The journey.', schema: dataOf(journeyDetailSchema) } }, errors: [...readErrors, 'not_found'] },
    handler: async (request, _reply, { credential }) => {
      const id = (request.params as { journeyId: string }).journeyId;
      return { data: await readJourneyOrNotFound(read.db, read.keyring, credential, id) };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/journeys/:journeyId/events',
    contract: { ...reader, summary: "List a journey's events", query: TIMELINE_QUERY, answers: { 200: { description: 'A page of journey event rows, in timeline order.', schema: dataOf(pageOf(journeyEventRowSchema)) } }, errors: [...readErrors, 'invalid_cursor', 'not_found'] },
    handler: async (request, _reply, { credential, query }) => {
      const params = parseTimelineParams(query);
      const id = (request.params as { journeyId: string }).journeyId;
      const page = readablePathId(id) ? await listJourneyEvents(deps.pool, credential, id, params) : null;
      if (!page) throw errors.notFound('The journey was not found.');
      return { data: page };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/events/:eventId',
    contract: { ...reader, summary: 'Get a stored event', query: {}, answers: { 200: { description: 'The stored event.', schema: dataOf(storedEventSchema) } }, errors: [...readErrors, 'not_found'] },
    handler: async (request, _reply, { credential }) => {
      const id = (request.params as { eventId: string }).eventId;
      const event = readablePathId(id) ? await getEventDetail(read.db, read.keyring, credential, id) : null;
      if (!event) throw errors.notFound('The event was not found.');
      return { data: event };
    },
  });
}
