// Routes only the web interface has (docs/web-interface.md, "Interface-only routes"). Same
// session, project selection and refusals as the API's copies under /ui/api; each calls one
// exported function of the capability that owns the rule.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requireAdminProject, requireReader, type AuthContext } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { readDiff } from '../forensics/read-diff.ts';
import { dataOf } from '../http/answers.ts';
import { eventDiffSchema } from '../http/answer-schemas/forensics.ts';
import { activitySchema, journeyDetailSchema } from '../http/answer-schemas/reads.ts';
import { replayPreviewSchema, replayRunSchema } from '../http/answer-schemas/replay.ts';
import { errors } from '../http/errors.ts';
import { defineRoute } from '../http/route-contract.ts';
import { codePointLength, hasNul } from '../protocol/identifiers.ts';
import { ACTIVITY_QUERY, journeyActivity, parseActivityParams } from '../query/activity.ts';
import type { CommonTrigramSource } from '../query/common-trigrams.ts';
import { getEventDetail } from '../query/details.ts';
import { readJourneyOrNotFound } from '../query/journey-read.ts';
import type { StaleReads } from '../http/read-routing.ts';
import { parseReplayInput } from '../replay/replay-input.ts';
import { listEventReplays, previewReplay, type ReplayDeps } from '../replay/replays.ts';

export interface DataRouteDeps {
  /** The session credential context. */
  auth: AuthContext;
  keyring: Keyring;
  replay: ReplayDeps;
  /** The trigram statistics the activity chart's text filter reads, one reading per process. */
  commonTrigrams: CommonTrigramSource;
  /** Where the activity chart reads (src/http/read-routing.ts); the primary when absent. */
  staleReads?: StaleReads;
}

/** Longest event id there is (event protocol 2.2); a longer or NUL-holding path id is not found. */
const MAX_EVENT_ID_CODE_POINTS = 128;

export function registerInterfaceDataRoutes(api: FastifyInstance, deps: DataRouteDeps): void {
  const reader = {
    credential: (request: FastifyRequest) => requireReader(request, deps.auth),
    security: ['adminToken'],
    tag: 'web',
  } as const;
  const activityReads = { db: deps.auth.db, keyring: deps.keyring, commonTrigrams: deps.commonTrigrams };
  const readErrors = ['unauthorized', 'project_not_found', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'] as const;

  // A static path: the router prefers it to /v1/journeys/:journeyId, so without any parameter
  // (the interface always sends some) it answers the journey read of a journey named "activity".
  defineRoute(api, {
    method: 'GET',
    url: '/v1/journeys/activity',
    contract: {
      ...reader,
      summary: 'Journeys per bucket of lastEventAt and status, with the journey list filters',
      query: ACTIVITY_QUERY,
      answers: {
        200: {
          description: 'since, until, bucketSeconds and the buckets. Without any parameter, the journey whose id is "activity", as GET /v1/journeys/{journeyId} answers it.',
          schema: dataOf(z.union([activitySchema, journeyDetailSchema])),
        },
      },
      errors: [...readErrors, 'not_found'],
    },
    handler: async (request, _reply, { credential, query }) => {
      if (Object.values(query).every((value) => value === undefined)) {
        return { data: await readJourneyOrNotFound(deps.auth.db, deps.keyring, credential, 'activity') };
      }
      const params = parseActivityParams(query, deps.auth.now());
      const reads = deps.staleReads ? { ...activityReads, db: deps.staleReads(request) } : activityReads;
      return { data: await journeyActivity(reads, credential, params, deps.auth.now()) };
    },
  });

  // The field-level diff of the event's stored input against its stored output, lost values
  // first and renamed keys paired (src/forensics/read-diff.ts).
  defineRoute(api, {
    method: 'GET',
    url: '/v1/events/:eventId/diff',
    contract: {
      ...reader,
      summary: "The field-level diff of an event's input against its output",
      query: {},
      answers: { 200: { description: 'comparable, rows and truncated.', schema: dataOf(eventDiffSchema) } },
      errors: [...readErrors, 'not_found'],
    },
    handler: async (request, _reply, { credential }) => {
      const id = (request.params as { eventId: string }).eventId;
      const readable = !hasNul(id) && codePointLength(id) <= MAX_EVENT_ID_CODE_POINTS;
      const event = readable ? await getEventDetail(deps.auth.db, deps.keyring, credential, id) : null;
      if (!event) throw errors.notFound('The event was not found.');
      // Without both payloads stored there is nothing to compare (capture mode, or no output).
      if (!event.hasInput || !event.hasOutput) return { data: { comparable: false, rows: [], truncated: false } };
      return { data: { comparable: true, ...readDiff(event.inputPayload, event.outputPayload) } };
    },
  });

  defineRoute(api, {
    method: 'POST',
    url: '/v1/replays/preview',
    contract: {
      credential: (request: FastifyRequest) => requireAdminProject(request, deps.auth),
      security: ['adminToken'],
      tag: 'web',
      summary: 'What a replay would send, destination header values redacted; nothing is sent',
      query: {},
      body: { schema: z.object({ eventId: z.string(), destinationId: z.string(), method: z.string().optional(), path: z.string() }) },
      answers: { 200: { description: 'method, url, headers, body and blocked.', schema: dataOf(replayPreviewSchema) } },
      errors: ['unauthorized', 'forbidden', 'project_not_found', 'invalid_query', 'invalid_request', 'malformed_json', 'not_found', 'no_captured_input', 'destination_disabled', 'forbidden_origin', 'internal_error'],
    },
    handler: async (request, _reply, { credential }) => ({ data: await previewReplay(deps.replay, credential, parseReplayInput(request.body)) }),
  });

  // The runs already sent for an event, so its page shows what replaying it did before.
  defineRoute(api, {
    method: 'GET',
    url: '/v1/events/:eventId/replays',
    contract: {
      credential: (request: FastifyRequest) => requireAdminProject(request, deps.auth),
      security: ['adminToken'],
      tag: 'web',
      summary: 'The latest replay runs of an event (at most 20), newest first',
      query: {},
      answers: { 200: { description: 'items: replay runs as GET /v1/replays/:id answers them.', schema: dataOf(z.strictObject({ items: z.array(replayRunSchema) })) } },
      errors: ['unauthorized', 'project_not_found', 'invalid_query', 'internal_error'],
    },
    handler: async (request, _reply, { credential }) => {
      const id = (request.params as { eventId: string }).eventId;
      const readable = !hasNul(id) && codePointLength(id) <= MAX_EVENT_ID_CODE_POINTS;
      return { data: { items: readable ? await listEventReplays(deps.replay.pool, credential, id) : [] } };
    },
  });
}
