// Routes of findings (docs/findings.md): the summary over a window, and the expectations of a
// project (admin only; the project is the path's, by id or slug).

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { adminBeforeBody, authorizeProjectInPath, requireAdmin, requireReader, type AuthContext, type ReadScope } from '../auth/credentials.ts';
import type { Pool } from '../db/pool.ts';
import type { StaleReads } from '../http/read-routing.ts';
import { dataOf, itemsOf } from '../http/answers.ts';
import { expectationPreviewSchema, expectationSchema, expectationSuggestionSchema, findingsSummarySchema } from '../http/answer-schemas/findings.ts';
import { AppError, errors } from '../http/errors.ts';
import { ceilMicros, parseInstantParam } from '../http/query.ts';
import { defineRoute } from '../http/route-contract.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { findEnvironment } from '../projects/environments-sql.ts';
import { findProjectBySlug } from '../projects/projects-sql.ts';
import { expectationInputSchema } from './expectation-input.ts';
import { deleteExpectation, listExpectations, parseExpectation, saveExpectation, suggestFromHistory, type StoredExpectation } from './expectations.ts';
import { MAX_EXPECTATION_NAME, MAX_SUGGESTION_JOURNEYS } from './limits.ts';
import { selectLagSeconds } from './pending-sql.ts';
import { previewExpectation } from './preview.ts';
import { selectFindingsSummary } from './summary-sql.ts';
import { selectSilencedProblemIds } from '../problems/silenced.ts';

const DAY_MS = 86_400_000;
/** Completed journeys a suggestion reads when `journeys` is not given. */
const DEFAULT_SUGGESTION_JOURNEYS = 100;

export function registerFindingsRoutes(app: FastifyInstance, deps: { auth: AuthContext; pool: Pool; metrics?: Metrics; staleReads?: StaleReads }): void {
  const db = deps.auth.db;
  deps.metrics?.setFindingsLagReader(() => selectLagSeconds(db, new Date(deps.auth.now())));
  const readErrors = ['unauthorized', 'too_many_attempts', 'project_not_found', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'] as const;

  defineRoute(app, {
    method: 'GET',
    url: '/v1/findings/summary',
    contract: {
      tag: 'findings',
      summary: 'Findings over a window: journeys per kind and the top lost fields',
      credential: (request: FastifyRequest): Promise<ReadScope> => requireReader(request, deps.auth),
      security: ['apiKey', 'adminToken'],
      query: {
        since: 'Instant with a time zone: findings of journeys whose lastEventAt is at or after it; 24 hours before until when omitted.',
        until: 'Instant with a time zone after since; the server clock when omitted.',
        environment: "Environment name, applied on top of the caller's scope.",
      },
      answers: { 200: { description: 'Counts by kind and the lost fields with the step where each was lost most.', schema: dataOf(findingsSummarySchema) } },
      errors: readErrors,
    },
    handler: async (request, _reply, { credential, query }) => {
      // A summary over a window tolerates a little staleness: a replica in sync may answer it.
      const summaryDb = deps.staleReads?.(request) ?? db;
      const since = parseInstantParam('since', query.since);
      const until = parseInstantParam('until', query.until);
      const untilMs = until === null ? deps.auth.now() : Number(ceilMicros(until) / 1000n);
      const sinceMs = since === null ? untilMs - DAY_MS : Number(ceilMicros(since) / 1000n);
      if (untilMs <= sinceMs) throw errors.invalidQuery('until', 'until must be after since.');
      const name = query.environment === undefined || query.environment === '' ? null : query.environment;
      const window = { since: formatTimestamp(sinceMs), until: formatTimestamp(untilMs), environment: name };
      const empty = { counts: { lost: 0, changed: 0, duplicated: 0, failed: 0, overdue: 0, skipped_step: 0 }, topLostFields: [] };
      // An API key reads its own environment; another name, or an unknown one, reads nothing.
      let environmentId: string | null = credential.environmentId;
      if (name !== null && credential.environmentId !== null && name !== credential.environmentName) return { data: { ...window, ...empty } };
      if (name !== null && credential.environmentId === null) {
        const found = await findEnvironment(summaryDb, credential.projectId, name);
        if (found === null) return { data: { ...window, ...empty } };
        environmentId = found.id;
      }
      const silenced = await selectSilencedProblemIds(db, credential.projectId, new Date(deps.auth.now()));
      const summary = await selectFindingsSummary(summaryDb, { projectId: credential.projectId, environmentId, since: new Date(sinceMs), until: new Date(untilMs) }, silenced);
      return { data: { ...window, ...summary } };
    },
  });

  const admin = {
    tag: 'findings',
    credential: (request: FastifyRequest) => requireAdmin(request, deps.auth),
    security: ['adminToken'],
  } as const;
  const adminErrors = ['unauthorized', 'too_many_attempts', 'project_not_found', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'] as const;
  const projectOf = async (request: FastifyRequest): Promise<string> => {
    // By id or slug; a person needs the route's role in that project (src/auth/policy.ts).
    const key = (request.params as { projectId: string }).projectId;
    const bySlug = /^[0-9a-f-]{36}$/i.test(key) || key.length > 64 ? null : await findProjectBySlug(db, key);
    return authorizeProjectInPath(request, deps.auth, bySlug?.id ?? key);
  };
  const entityTypeOf = (request: FastifyRequest): string => {
    const entityType = (request.params as { entityType: string }).entityType;
    if (entityType === '' || entityType.includes('\u0000') || [...entityType].length > MAX_EXPECTATION_NAME) {
      throw errors.invalidRequest('entityType', `The entity type must be 1 to ${MAX_EXPECTATION_NAME} characters without NUL.`);
    }
    return entityType;
  };
  const view = (stored: StoredExpectation) => ({ ...stored, updatedAt: formatTimestamp(stored.updatedAt.getTime()) });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/projects/:projectId/expectations',
    contract: {
      ...admin,
      summary: 'List the expectations of a project',
      query: {},
      answers: { 200: { description: 'One expectation per entity type that has one.', schema: dataOf(itemsOf(expectationSchema)) } },
      errors: adminErrors,
    },
    handler: async (request) => ({ data: { items: (await listExpectations(db, await projectOf(request))).map(view) } }),
  });

  defineRoute(app, {
    method: 'PUT',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/projects/:projectId/expectations/:entityType',
    contract: {
      ...admin,
      summary: 'Set the expectation of an entity type',
      query: {},
      body: { schema: expectationInputSchema, contentTypes: ['application/json'] },
      answers: { 200: { description: 'The saved expectation; the entity type\'s journeys are analysed again.', schema: dataOf(expectationSchema) } },
      errors: [...adminErrors, 'invalid_request', 'malformed_json', 'unsupported_media_type', 'payload_too_large'],
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      const entityType = entityTypeOf(request);
      return { data: view(await saveExpectation(deps.pool, projectId, entityType, validExpectation(request.body))) };
    },
  });

  defineRoute(app, {
    method: 'POST',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/projects/:projectId/expectations/:entityType/preview',
    contract: {
      ...admin,
      summary: 'What an expectation would find in the entity type\'s recent journeys, without saving it',
      query: {},
      body: { schema: expectationInputSchema, contentTypes: ['application/json'] },
      answers: { 200: { description: 'Counts over the most recent journeys (at most 500); nothing is saved.', schema: dataOf(expectationPreviewSchema) } },
      errors: [...adminErrors, 'invalid_request', 'malformed_json', 'unsupported_media_type', 'payload_too_large'],
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      const entityType = entityTypeOf(request);
      return { data: await previewExpectation(db, projectId, entityType, validExpectation(request.body), deps.auth.now()) };
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/projects/:projectId/expectations/:entityType',
    contract: {
      ...admin,
      summary: 'Remove the expectation of an entity type',
      query: {},
      answers: { 204: { description: 'Removed; the entity type\'s journeys lose their overdue and skipped_step findings.' } },
      errors: [...adminErrors, 'invalid_request', 'not_found'],
    },
    handler: async (request, reply) => {
      const removed = await deleteExpectation(deps.pool, await projectOf(request), entityTypeOf(request));
      if (!removed) throw errors.notFound('The entity type has no expectation.');
      return reply.status(204).send();
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/projects/:projectId/expectations/:entityType/suggestion',
    contract: {
      ...admin,
      summary: 'Suggest an expectation from the last completed journeys of an entity type',
      query: { journeys: `Completed journeys to learn from, 1 to ${MAX_SUGGESTION_JOURNEYS}; ${DEFAULT_SUGGESTION_JOURNEYS} when omitted.` },
      answers: { 200: { description: 'A proposal to edit and save; nothing is saved.', schema: dataOf(expectationSuggestionSchema) } },
      errors: [...adminErrors, 'invalid_request'],
    },
    handler: async (request, _reply, { query }) => {
      const projectId = await projectOf(request);
      const entityType = entityTypeOf(request);
      const count = query.journeys === undefined || query.journeys === '' ? DEFAULT_SUGGESTION_JOURNEYS : /^\d{1,5}$/.test(query.journeys) ? Number(query.journeys) : 0;
      if (count < 1 || count > MAX_SUGGESTION_JOURNEYS) throw errors.invalidQuery('journeys', `journeys must be a whole number from 1 to ${MAX_SUGGESTION_JOURNEYS}.`);
      const suggestion = await suggestFromHistory(db, projectId, entityType, count);
      return { data: { entityType, ...suggestion } };
    },
  });
}

/** The body as an expectation, or 400 with every problem in details, each at its field's path, so a form can name the fields. */
function validExpectation(body: unknown) {
  const parsed = parseExpectation(body);
  if (!parsed.ok) throw new AppError('invalid_request', 'The expectation is not valid: steps [{name, optional}], finalStep, maxGapSeconds, deadlineSeconds.', parsed.details);
  return parsed.value;
}
