// Journey forensics routes (docs/forensics.md). Same credentials, throttle, scope, masking and
// 404 rules as the journey read: they call the query capability's reads, never its SQL.
// `/v1/journeys/compare` is a static route: the router prefers it to `/v1/journeys/:journeyId`,
// so without `a` and `b` it answers the journey read of the journey whose id is `compare`.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requestBearerToken, requireReader, type AuthContext, type ReadScope } from '../auth/credentials.ts';
import { parseApiKeyShape } from '../crypto/api-keys.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import { dataOf } from '../http/answers.ts';
import { followedFieldSchema, journeyChangesSchema, journeyComparisonSchema } from '../http/answer-schemas/forensics.ts';
import { journeyDetailSchema } from '../http/answer-schemas/reads.ts';
import { errors } from '../http/errors.ts';
import { defineRoute } from '../http/route-contract.ts';
import { getJourneyDetail } from '../query/details.ts';
import { readJourneyOrNotFound } from '../query/journey-read.ts';
import { readJourneyPayloads, readJourneyPayloadsAt, type JourneyPayloads } from '../query/journey-payloads.ts';
import { compareJourneys } from './compare-journeys.ts';
import { WORK_SLICE_MS, WorkCancelled, workSlicer } from './cooperative.ts';
import { createWorkQueue, type Caller, type WorkQueue } from './fair-queue.ts';
import { leadingKeys, parseFieldPath } from './field-path.ts';
import { followField } from './follow-field.ts';
import { listJourneyChanges } from './journey-changes.ts';
import { MAX_FORENSICS_EVENTS, MAX_JOURNEY_ID_CODE_POINTS } from './limits.ts';

export interface ForensicsDeps {
  auth: AuthContext;
  /** The ordered reads of a journey's events run in a transaction of their own (src/query/timeline-order.ts). */
  pool: Pool;
  keyring: Keyring;
  /** The process's one queue of forensic work, shared by /v1 and /ui/api (fair-queue.ts). */
  work?: WorkQueue;
}

export function registerForensicsRoutes(app: FastifyInstance, deps: ForensicsDeps): void {
  const db = deps.auth.db;
  const queue = deps.work ?? createWorkQueue();
  // The payload reads and walks of a request: admitted in turn, stopped when the client leaves.
  const walk = <T>(request: FastifyRequest, reply: FastifyReply, scope: ReadScope, task: (pause: () => Promise<void>, signal: AbortSignal) => Promise<T>) => {
    const signal = clientGone(request, reply);
    return queue(callerOf(request, scope), signal, () => task(workSlicer(WORK_SLICE_MS, signal), signal));
  };
  const callerOf = (request: FastifyRequest, scope: ReadScope): Caller => {
    // An API key by its prefix (never the secret); the admin token and the session are one each.
    const prefix = scope.environmentId === null ? null : parseApiKeyShape(requestBearerToken(request) ?? '');
    const callerId = prefix !== null ? `key:${prefix}` : scope.environmentId !== null ? `environment:${scope.environmentId}` : deps.auth.session ? 'session' : 'admin';
    return { projectId: scope.projectId, callerId };
  };
  const reader = {
    credential: (request: FastifyRequest): Promise<ReadScope> => requireReader(request, deps.auth),
    security: ['apiKey', 'adminToken'],
    tag: 'forensics',
  } as const;
  const readErrors = ['unauthorized', 'too_many_attempts', 'project_not_found', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error', 'not_found'] as const;
  // `keys`: read only that part of each payload (following one field needs no more).
  const journey = async (scope: ReadScope, id: string, signal: AbortSignal, keys?: string[]): Promise<JourneyPayloads> => {
    const read = !readableId(id)
      ? null
      : keys === undefined
        ? await readJourneyPayloads(deps.pool, scope, id, MAX_FORENSICS_EVENTS)
        : await readJourneyPayloadsAt(deps.pool, scope, id, keys, MAX_FORENSICS_EVENTS);
    // The read itself cannot be stopped half way; the walk after it can be skipped.
    if (signal.aborted) throw new WorkCancelled();
    if (read === null) throw errors.notFound('The journey was not found.');
    return read;
  };
  const journeyIdOf = (request: FastifyRequest) => (request.params as { journeyId: string }).journeyId;

  defineRoute(app, {
    method: 'GET',
    url: '/v1/journeys/:journeyId/fields',
    contract: {
      ...reader,
      summary: 'Follow a field through a journey',
      query: { path: 'Required: keys joined by ".", [*] or [index] after a key (docs/forensics.md).' },
      answers: { 200: { description: 'Every step with the value at the path and a verdict; the first loss and the first difference.', schema: dataOf(followedFieldSchema) } },
      errors: readErrors,
    },
    handler: async (request, reply, { credential, query }) => {
      const path = query.path ?? '';
      const segments = parseFieldPath(path);
      if (typeof segments === 'string') throw errors.invalidQuery('path', segments);
      const followed = await walk(request, reply, credential, async (pause, signal) =>
        followField(await journey(credential, journeyIdOf(request), signal, leadingKeys(segments)), segments, pause),
      );
      return { data: { journeyId: journeyIdOf(request), path, ...followed } };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/journeys/:journeyId/changes',
    contract: { ...reader, summary: 'What changed in a journey', query: {}, answers: { 200: { description: 'Every changed path with the steps where it changed, lost first.', schema: dataOf(journeyChangesSchema) } }, errors: readErrors },
    handler: async (request, reply, { credential }) => {
      const changes = await walk(request, reply, credential, async (pause, signal) =>
        listJourneyChanges(await journey(credential, journeyIdOf(request), signal), pause),
      );
      return { data: { journeyId: journeyIdOf(request), ...changes } };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/journeys/compare',
    contract: {
      ...reader,
      summary: 'Compare two journeys step by step',
      query: { a: 'Required: a journey id.', b: 'Required: the journey id to compare it with.' },
      answers: {
        200: {
          description:
            'Both journeys and their aligned steps with the diffs of inputs and outputs. Without a and b, the journey whose id is "compare", as GET /v1/journeys/{journeyId} answers it.',
          schema: dataOf(z.union([journeyComparisonSchema, journeyDetailSchema])),
        },
      },
      errors: readErrors,
    },
    handler: async (request, reply, { credential, query }) => {
      // The static path shadows the journey read of a journey named "compare" (any id is valid,
      // event protocol 2.2): asked without a comparison's parameters, it is that read.
      if (query.a === undefined && query.b === undefined) return { data: await readJourneyOrNotFound(db, deps.keyring, credential, 'compare') };
      for (const name of ['a', 'b'] as const) {
        if ((query[name] ?? '') === '') throw errors.invalidQuery(name, `${name} is required: a journey id.`);
      }
      const [a, b] = [query.a!, query.b!];
      // Both journeys at once, on two pool connections; the journey read itself masks aliases.
      return walk(request, reply, credential, async (pause, signal) => {
        const side = async (id: string) => ({ events: await journey(credential, id, signal), detail: await getJourneyDetail(db, deps.keyring, credential, id) });
        const [{ events: eventsA, detail: journeyA }, { events: eventsB, detail: journeyB }] = await Promise.all([side(a), side(b)]);
        if (journeyA === null || journeyB === null) throw errors.notFound('The journey was not found.');
        const truncated = { a: eventsA.truncated, b: eventsB.truncated };
        return { data: { a: journeyA, b: journeyB, truncated, ...(await compareJourneys(eventsA, eventsB, pause)) } };
      });
    },
  });
}

/**
 * Aborted when the client closes the connection before its answer is written: work for a client
 * that left is not worth finishing (a disconnect frees its place at once).
 */
function clientGone(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const socket = request.raw.socket as { destroyed?: boolean } | undefined;
  if (socket?.destroyed === true) controller.abort();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** A path or query id the database could hold; anything else is simply not found. */
function readableId(id: string): boolean {
  return !id.includes('\u0000') && [...id].length <= MAX_JOURNEY_ID_CODE_POINTS;
}
