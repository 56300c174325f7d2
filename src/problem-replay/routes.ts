// Routes of batch replays (docs/problems.md, "Verifying a fix by replay"): reads for viewers,
// start and cancel for operators (src/auth/policy.ts). The project is the path's, by id or slug.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { adminBeforeBody, authorizeProjectInPath, requestActor, requireAdmin, type AuthContext } from '../auth/credentials.ts';
import type { Pool } from '../db/pool.ts';
import { dataOf, pageOf } from '../http/answers.ts';
import { decodeTaggedCursor, encodeTaggedCursor } from '../http/cursor-codec.ts';
import { errors } from '../http/errors.ts';
import { parseLimit } from '../http/query.ts';
import { ADMIN_ROUTE_ERRORS, defineRoute, JSON_BODY_ERRORS } from '../http/route-contract.ts';
import { parseTimestamp } from '../protocol/timestamps.ts';
import { findProjectBySlug } from '../projects/projects-sql.ts';
import { batchSchema, resultSchema } from './answer-schemas.ts';
import { batchBodySchema, cancelProblemReplay, getProblemReplay, listProblemReplayResults, listProblemReplays, parseBatchInput, startProblemReplay, VERDICTS } from './batches.ts';
import { resultsCsv } from './csv.ts';
import { MAX_EXPORT_ROWS } from './limits.ts';

export interface ProblemReplayRouteDeps {
  auth: AuthContext;
  pool: Pool;
  /** Asks this instance's runner (a worker) to look for the new batch now. */
  wake?: () => void;
}

export function registerProblemReplayRoutes(app: FastifyInstance, deps: ProblemReplayRouteDeps): void {
  const db = deps.auth.db;
  const base = '/v1/projects/:projectId';
  const person = { tag: 'problems', credential: (request: FastifyRequest) => requireAdmin(request, deps.auth), security: ['adminToken'] } as const;
  const readErrors = [...ADMIN_ROUTE_ERRORS, 'project_not_found', 'not_found'] as const;
  const projectOf = async (request: FastifyRequest): Promise<string> => {
    const key = (request.params as { projectId: string }).projectId;
    const bySlug = /^[0-9a-f-]{36}$/i.test(key) || key.length > 64 ? null : await findProjectBySlug(db, key);
    return authorizeProjectInPath(request, deps.auth, bySlug?.id ?? key);
  };
  const param = (request: FastifyRequest, name: string) => (request.params as Record<string, string>)[name]!;
  const batchOf = async (request: FastifyRequest, projectId: string) => {
    const batch = await getProblemReplay(db, projectId, param(request, 'batchId'));
    if (batch === null) throw errors.notFound('The batch replay was not found.');
    return batch;
  };
  const now = () => new Date(deps.auth.now());

  defineRoute(app, {
    method: 'POST',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: `${base}/problems/:problemId/replays`,
    contract: {
      ...person,
      summary: "Replay the recorded input of a problem's step from up to N of its journeys to a destination",
      query: {},
      body: { schema: batchBodySchema, contentTypes: ['application/json'] },
      answers: { 202: { description: 'The batch, stored and running.', schema: dataOf(batchSchema) } },
      errors: [...readErrors, ...JSON_BODY_ERRORS, 'destination_disabled'],
    },
    handler: async (request, reply) => {
      const projectId = await projectOf(request);
      const input = parseBatchInput(request.body);
      const batch = await startProblemReplay(deps.pool, projectId, param(request, 'problemId'), input, await requestActor(request, deps.auth), now());
      deps.wake?.();
      return reply.status(202).send({ data: batch });
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: `${base}/problems/:problemId/replays`,
    contract: {
      ...person,
      summary: "A problem's batch replays, newest first",
      query: { limit: 'Batches per page, 1..100 (default 25).', cursor: 'nextCursor of the previous page.' },
      answers: { 200: { description: 'A page of batches.', schema: dataOf(pageOf(batchSchema)) } },
      errors: [...readErrors, 'invalid_cursor'],
    },
    handler: async (request, _reply, { query }) => {
      const projectId = await projectOf(request);
      const limit = parseLimit(query.limit);
      let after: { createdAt: Date; id: string } | null = null;
      if (query.cursor !== undefined && query.cursor !== '') {
        const { t, i } = decodeTaggedCursor(query.cursor, 'problem-replays', ['k', 't', 'i'], 512);
        const ms = typeof t === 'string' ? parseTimestamp(t) : null;
        if (ms === null || typeof i !== 'string' || !/^[0-9a-f-]{36}$/.test(i)) throw errors.invalidCursor();
        after = { createdAt: new Date(ms), id: i };
      }
      const page = await listProblemReplays(db, projectId, param(request, 'problemId'), after, limit);
      if (page === null) throw errors.notFound('The problem was not found.');
      const last = page.items.at(-1);
      return { data: { items: page.items, nextCursor: page.more && last ? encodeTaggedCursor({ k: 'problem-replays', t: last.createdAt, i: last.id }) : null } };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: `${base}/problem-replays/:batchId`,
    contract: { ...person, summary: 'A batch replay with its verdict counts', query: {}, answers: { 200: { description: 'The batch.', schema: dataOf(batchSchema) } }, errors: readErrors },
    handler: async (request) => ({ data: await batchOf(request, await projectOf(request)) }),
  });

  defineRoute(app, {
    method: 'GET',
    url: `${base}/problem-replays/:batchId/results`,
    contract: {
      ...person,
      summary: "A batch replay's results in journey order, or all of them as CSV",
      query: {
        verdict: 'Only results with this verdict: pending, kept, still_lost or failed.',
        limit: 'Results per page, 1..100 (default 25).',
        cursor: 'nextCursor of the previous page.',
        format: 'csv: every result as text/csv (journeyId,verdict,replayId,error).',
      },
      answers: { 200: { description: 'A page of results; text/csv with format=csv.', schema: dataOf(pageOf(resultSchema)) } },
      errors: [...readErrors, 'invalid_cursor'],
    },
    handler: async (request, reply, { query }) => {
      const projectId = await projectOf(request);
      const verdict = query.verdict === undefined ? null : query.verdict;
      if (verdict !== null && !(VERDICTS as readonly string[]).includes(verdict)) throw errors.invalidQuery('verdict', `verdict must be one of ${VERDICTS.join(', ')}.`);
      if (query.format !== undefined && query.format !== 'csv') throw errors.invalidQuery('format', 'format must be csv.');
      const limit = parseLimit(query.limit);
      let after = 0;
      if (query.cursor !== undefined && query.cursor !== '') {
        const { o } = decodeTaggedCursor(query.cursor, 'problem-replay-results', ['k', 'o'], 128);
        if (typeof o !== 'string' || !/^[1-9][0-9]{0,6}$/.test(o)) throw errors.invalidCursor();
        after = Number(o);
      }
      const batch = await batchOf(request, projectId);
      if (query.format === 'csv') {
        const all = await listProblemReplayResults(db, projectId, batch.id, verdict, 0, MAX_EXPORT_ROWS);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="jtrace-replay-${batch.id}.csv"`)
          .send(resultsCsv(all.items));
      }
      const page = await listProblemReplayResults(db, projectId, batch.id, verdict, after, limit);
      return { data: { items: page.items, nextCursor: page.more && page.lastOrdinal !== null ? encodeTaggedCursor({ k: 'problem-replay-results', o: String(page.lastOrdinal) }) : null } };
    },
  });

  defineRoute(app, {
    method: 'POST',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: `${base}/problem-replays/:batchId/cancel`,
    contract: {
      ...person,
      summary: 'Cancel a batch replay: replays in flight finish, nothing new starts',
      query: {},
      answers: { 200: { description: 'The batch; a finished one unchanged.', schema: dataOf(batchSchema) } },
      errors: readErrors,
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      const batch = await cancelProblemReplay(deps.pool, projectId, param(request, 'batchId'), await requestActor(request, deps.auth), now());
      if (batch === null) throw errors.notFound('The batch replay was not found.');
      return { data: batch };
    },
  });
}
