// Routes of problems (docs/problems.md): the list, one problem with its series, its journeys,
// and status changes (operators and above, src/auth/policy.ts). The project is the path's, by
// id or slug.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { adminBeforeBody, authorizeProjectInPath, requestActor, requireAdmin, type AuthContext } from '../auth/credentials.ts';
import type { Pool } from '../db/pool.ts';
import { dataOf, pageOf } from '../http/answers.ts';
import { problemDetailSchema, problemJourneySchema, problemSchema } from '../http/answer-schemas/problems.ts';
import { decodeTaggedCursor, encodeTaggedCursor } from '../http/cursor-codec.ts';
import { errors } from '../http/errors.ts';
import { parseLimit } from '../http/query.ts';
import { ADMIN_ROUTE_ERRORS, defineRoute, JSON_BODY_ERRORS } from '../http/route-contract.ts';
import { formatTimestamp, parseTimestamp } from '../protocol/timestamps.ts';
import { findProjectBySlug } from '../projects/projects-sql.ts';
import { LIST_PARAMETERS, nextCursor, parseFilters, parsePage } from './list-query.ts';
import { setProblemStatus, statusChangeSchema } from './problem-status.ts';
import { problemView } from './problem-view.ts';
import { selectExamples, selectProblem, selectProblemJourneys, selectProblems, selectReleases, selectSeries } from './problems-sql.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Hours of the hourly series: the last 7 days. */
const HOURLY_BUCKETS = 168;
/** Most days of the daily series (the longest retention a setting allows is shorter). */
const MAX_DAILY_BUCKETS = 400;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function registerProblemRoutes(app: FastifyInstance, deps: { auth: AuthContext; pool: Pool }): void {
  const db = deps.auth.db;
  const base = '/v1/projects/:projectId/problems';
  const person = { tag: 'problems', credential: (request: FastifyRequest) => requireAdmin(request, deps.auth), security: ['adminToken'] } as const;
  const readErrors = [...ADMIN_ROUTE_ERRORS, 'project_not_found'] as const;
  const projectOf = async (request: FastifyRequest): Promise<string> => {
    // By id or slug; a person needs the route's role in that project (src/auth/policy.ts).
    const key = (request.params as { projectId: string }).projectId;
    const bySlug = /^[0-9a-f-]{36}$/i.test(key) || key.length > 64 ? null : await findProjectBySlug(db, key);
    return authorizeProjectInPath(request, deps.auth, bySlug?.id ?? key);
  };
  const problemIdOf = (request: FastifyRequest): string => {
    const id = (request.params as { problemId: string }).problemId;
    if (!UUID.test(id)) throw errors.notFound('The problem was not found.');
    return id;
  };
  const now = () => new Date(deps.auth.now());

  defineRoute(app, {
    method: 'GET',
    url: base,
    contract: {
      ...person,
      summary: "List the project's problems: findings grouped by kind, field and place",
      query: LIST_PARAMETERS,
      answers: { 200: { description: 'A page of problems, in the sort order.', schema: dataOf(pageOf(problemSchema)) } },
      errors: [...readErrors, 'invalid_cursor'],
    },
    handler: async (request, _reply, { query }) => {
      const projectId = await projectOf(request);
      const filters = parseFilters(query);
      const page = parsePage(query);
      const rows = await selectProblems(db, projectId, filters, { ...page, limit: page.limit + 1 }, now());
      const items = rows.slice(0, page.limit);
      return { data: { items: items.map(problemView), nextCursor: rows.length > page.limit ? nextCursor(page.sort, items.at(-1)!) : null } };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: `${base}/:problemId`,
    contract: {
      ...person,
      summary: 'A problem with its releases, hourly and daily series and example journeys',
      query: {},
      answers: { 200: { description: 'The problem.', schema: dataOf(problemDetailSchema) } },
      errors: [...readErrors, 'not_found'],
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      const problemId = problemIdOf(request);
      const at = now();
      const row = await selectProblem(db, projectId, problemId, at);
      if (row === null) throw errors.notFound('The problem was not found.');
      const hourStart = new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS - (HOURLY_BUCKETS - 1) * HOUR_MS);
      const days = Math.min(Math.max(row.retention_days, 1), MAX_DAILY_BUCKETS);
      const dayStart = new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS - (days - 1) * DAY_MS);
      const [releases, hourly, daily, examples] = [
        await selectReleases(db, projectId, problemId),
        await selectSeries(db, projectId, problemId, 'hour', hourStart, HOURLY_BUCKETS),
        await selectSeries(db, projectId, problemId, 'day', dayStart, days),
        await selectExamples(db, projectId, problemId),
      ];
      return {
        data: {
          ...problemView(row),
          releases: releases.map((r) => ({ release: r.release, journeys: r.journeys, firstSeen: formatTimestamp(r.first_seen.getTime()), lastSeen: formatTimestamp(r.last_seen.getTime()) })),
          hourly: { start: formatTimestamp(hourStart.getTime()), counts: hourly },
          daily: { start: formatTimestamp(dayStart.getTime()), counts: daily },
          examples,
        },
      };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: `${base}/:problemId/journeys`,
    contract: {
      ...person,
      summary: 'The journeys that have a problem, latest first',
      query: { limit: LIST_PARAMETERS.limit, cursor: LIST_PARAMETERS.cursor },
      answers: { 200: { description: 'A page of journeys.', schema: dataOf(pageOf(problemJourneySchema)) } },
      errors: [...readErrors, 'invalid_cursor', 'not_found'],
    },
    handler: async (request, _reply, { query }) => {
      const projectId = await projectOf(request);
      const problemId = problemIdOf(request);
      const limit = parseLimit(query.limit);
      let after: { seenAt: Date; journeyId: string } | null = null;
      if (query.cursor !== undefined && query.cursor !== '') {
        const { t, j } = decodeTaggedCursor(query.cursor, 'problem-journeys', ['k', 't', 'j'], 512);
        const ms = typeof t === 'string' ? parseTimestamp(t) : null;
        if (ms === null || typeof j !== 'string' || j.length > 128) throw errors.invalidCursor();
        after = { seenAt: new Date(ms), journeyId: j };
      }
      if ((await selectProblem(db, projectId, problemId, now())) === null) throw errors.notFound('The problem was not found.');
      const rows = await selectProblemJourneys(db, projectId, problemId, after, limit + 1);
      const items = rows.slice(0, limit).map((r) => ({ journeyId: r.journey_id, lastEventAt: formatTimestamp(r.seen_at.getTime()), release: r.release }));
      const last = items.at(-1);
      return { data: { items, nextCursor: rows.length > limit && last ? encodeTaggedCursor({ k: 'problem-journeys', t: last.lastEventAt, j: last.journeyId }) : null } };
    },
  });

  defineRoute(app, {
    method: 'PATCH',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: `${base}/:problemId`,
    contract: {
      ...person,
      summary: "Change a problem's status: open, resolved (in the next release), ignored (until a date or N more journeys) or expected",
      query: {},
      body: { schema: statusChangeSchema, contentTypes: ['application/json'] },
      answers: { 200: { description: 'The problem.', schema: dataOf(problemSchema) } },
      errors: [...readErrors, ...JSON_BODY_ERRORS, 'not_found'],
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      const problemId = problemIdOf(request);
      const parsed = statusChangeSchema.safeParse(request.body);
      if (!parsed.success) throw errors.invalidRequest(parsed.error.issues[0]!.path.join('.') || 'status', 'The body is not a valid status change (docs/problems.md).');
      const at = now();
      if (parsed.data.status === 'ignored' && parsed.data.until !== undefined && parseTimestamp(parsed.data.until)! <= at.getTime()) {
        throw errors.invalidRequest('until', 'until must be in the future.');
      }
      if (!(await setProblemStatus(deps.pool, projectId, problemId, parsed.data, at, await requestActor(request, deps.auth)))) {
        throw errors.notFound('The problem was not found.');
      }
      return { data: problemView((await selectProblem(db, projectId, problemId, at))!) };
    },
  });
}
