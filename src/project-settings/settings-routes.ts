// The Settings routes of projects and environments (docs/api.md, "Settings"): create and rename a
// project (owners), read and change an environment's capture and retention settings, and preview
// what ingestion would store under settings being edited (the project's admins). Every change is
// recorded in the settings history; none writes an audit row (interface spec 6).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { listSubjectChanges, type SettingsChangeRow } from '../audit/settings-history.ts';
import { adminBeforeBody, authorizeProjectInPath, requestActor, requireAdmin, type AuthContext } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import { capturePreviewSchema as previewAnswer, environmentDetailSchema, environmentSettingsSchema } from '../http/answer-schemas/project-settings.ts';
import { projectSchema } from '../http/answer-schemas/reads.ts';
import { dataOf, itemsOf } from '../http/answers.ts';
import { AppError, errors } from '../http/errors.ts';
import { defineRoute, JSON_BODY_ERRORS } from '../http/route-contract.ts';
import { previewEnvelopeCapture, previewStoredCapture } from '../ingest/capture-preview.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { getEventDetail } from '../query/details.ts';
import { findEnvironment, listEnvironments, recentEvents, type EnvironmentRow } from '../projects/environments-sql.ts';
import { findProjectById, findProjectBySlug } from '../projects/projects-sql.ts';
import { changeEnvironment, createEnvironmentRecorded, environmentUseMessage, removeEnvironmentRecorded, renameEnvironmentRecorded, createProjectRecorded, renameProjectRecorded } from '../projects/settings.ts';
import { capturePreviewSchema, environmentChangeSchema, environmentRenameSchema, newEnvironmentSchema, newProjectSchema, projectRenameSchema } from '../projects/settings-input.ts';

export interface SettingsRouteDeps {
  auth: AuthContext;
  pool: Pool;
  keyring: Keyring;
  allowFullPayloadCapture: boolean;
  maxEventPayloadBytes: number;
  /** DEFAULT_RETENTION_DAYS: the retention of an environment created without one. */
  defaultRetentionDays: number;
}

/** History rows and recent events an environment's page shows. */
const HISTORY_ROWS = 20;
const RECENT_EVENTS = 10;

function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.join('.');
    throw errors.invalidRequest(path, path === '' ? issue.message : `${path} ${issue.message}`);
  }
  return parsed.data;
}

const ts = (date: Date) => formatTimestamp(date.getTime());
const environmentView = (e: EnvironmentRow) => ({ name: e.name, captureMode: e.captureMode, retentionDays: e.retentionDays, redactionPaths: e.redactionPaths, captureAllowlist: e.captureAllowlist });
const changeView = (row: SettingsChangeRow) => ({
  id: row.id,
  action: row.action,
  subject: row.subject,
  before: row.before,
  after: row.after,
  actor: { kind: row.actor.kind, email: row.actor.email, keyPrefix: row.actor.keyPrefix },
  createdAt: ts(row.createdAt),
});

export function registerSettingsRoutes(app: FastifyInstance, deps: SettingsRouteDeps): void {
  const db = deps.pool;
  const common = { tag: 'settings', credential: (request: FastifyRequest) => requireAdmin(request, deps.auth), security: ['adminToken'], query: {} } as const;
  const base = ['unauthorized', 'forbidden', 'too_many_attempts', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'] as const;
  const bodyErrors = JSON_BODY_ERRORS;
  const inProject = [...base, 'project_not_found'] as const;
  const inEnvironment = [...inProject, 'environment_not_found'] as const;
  const withBody = { preParsing: adminBeforeBody(deps.auth) };

  /** The path's project by id or slug; a person needs the route's role in it (src/auth/policy.ts). */
  const projectOf = async (request: FastifyRequest): Promise<string> => {
    const key = (request.params as { projectId: string }).projectId;
    const bySlug = /^[0-9a-f-]{36}$/i.test(key) || key.length > 64 ? null : await findProjectBySlug(db, key);
    return authorizeProjectInPath(request, deps.auth, bySlug?.id ?? key);
  };
  const environmentOf = async (request: FastifyRequest): Promise<{ projectId: string; environment: EnvironmentRow }> => {
    const projectId = await projectOf(request);
    const environment = await findEnvironment(db, projectId, (request.params as { name: string }).name);
    if (environment === null) throw new AppError('environment_not_found', 'The project has no environment of this name.');
    return { projectId, environment };
  };
  const detail = async (projectId: string, environment: EnvironmentRow) => ({
    ...environmentView(environment),
    fullPayloadAllowed: deps.allowFullPayloadCapture,
    effectiveCaptureMode: environment.captureMode === 'full-payload' && !deps.allowFullPayloadCapture ? ('redacted-payload' as const) : environment.captureMode,
    history: (await listSubjectChanges(db, projectId, ['environment.created', 'environment.updated'], environment.name, HISTORY_ROWS)).map(changeView),
    recentEvents: (await recentEvents(db, projectId, environment.id, RECENT_EVENTS)).map((e) => ({ ...e, eventTimestamp: ts(e.eventTimestamp) })),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/v1/projects',
    options: withBody,
    contract: {
      ...common,
      summary: 'Create a project (owners)',
      body: { schema: newProjectSchema, contentTypes: ['application/json'] },
      answers: { 201: { description: 'The new project, without environments yet.', schema: dataOf(projectSchema) } },
      errors: [...base, ...bodyErrors, 'slug_taken'],
    },
    handler: async (request, reply) => {
      const input = parseBody(newProjectSchema, request.body);
      const created = await createProjectRecorded(db, input, await requestActor(request, deps.auth));
      if (created === 'slug_taken') throw new AppError('slug_taken', 'Another project has this slug.', [{ path: 'slug', message: 'taken' }]);
      return reply.status(201).send({ data: created });
    },
  });

  defineRoute(app, {
    method: 'PATCH',
    url: '/v1/projects/:projectId',
    options: withBody,
    contract: {
      ...common,
      summary: 'Rename a project (owners)',
      body: { schema: projectRenameSchema, contentTypes: ['application/json'] },
      answers: { 200: { description: 'The project.', schema: dataOf(projectSchema) } },
      errors: [...inProject, ...bodyErrors],
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      const { name } = parseBody(projectRenameSchema, request.body);
      if ((await renameProjectRecorded(db, projectId, name, await requestActor(request, deps.auth))) === null) throw errors.projectNotFound();
      return { data: (await findProjectById(db, projectId))! };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/projects/:projectId/environments',
    contract: { ...common, summary: "A project's environments with their settings (the project's admins)", answers: { 200: { description: 'By name.', schema: dataOf(itemsOf(environmentSettingsSchema)) } }, errors: inProject },
    handler: async (request) => ({ data: { items: (await listEnvironments(db, await projectOf(request))).map(environmentView) } }),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/v1/projects/:projectId/environments',
    options: withBody,
    contract: {
      ...common,
      summary: "Create an environment (the project's admins)",
      body: { schema: newEnvironmentSchema, contentTypes: ['application/json'] },
      answers: { 201: { description: 'The new environment in redacted-payload, with its history.', schema: dataOf(environmentDetailSchema) } },
      errors: [...inProject, ...bodyErrors, 'environment_exists'],
    },
    handler: async (request, reply) => {
      const projectId = await projectOf(request);
      const { name, retentionDays } = parseBody(newEnvironmentSchema, request.body);
      const created = await createEnvironmentRecorded(db, projectId, name, retentionDays ?? deps.defaultRetentionDays, await requestActor(request, deps.auth));
      if (created === 'exists') throw new AppError('environment_exists', 'The project has an environment of this name.', [{ path: 'name', message: 'taken' }]);
      return reply.status(201).send({ data: await detail(projectId, created) });
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/projects/:projectId/environments/:name',
    contract: { ...common, summary: "An environment's settings, history and recent events (the project's admins)", answers: { 200: { description: 'The environment.', schema: dataOf(environmentDetailSchema) } }, errors: inEnvironment },
    handler: async (request) => {
      const { projectId, environment } = await environmentOf(request);
      return { data: await detail(projectId, environment) };
    },
  });

  defineRoute(app, {
    method: 'PATCH',
    url: '/v1/projects/:projectId/environments/:name',
    options: withBody,
    contract: {
      ...common,
      summary: "Change an environment's capture mode, retention, redaction rules or allowlist (the project's admins)",
      body: { schema: environmentChangeSchema, contentTypes: ['application/json'] },
      answers: { 200: { description: 'The environment as changed, with its history.', schema: dataOf(environmentDetailSchema) } },
      errors: [...inEnvironment, ...bodyErrors],
    },
    handler: async (request) => {
      const { projectId, environment } = await environmentOf(request);
      const change = parseBody(environmentChangeSchema, request.body);
      const outcome = await changeEnvironment(db, projectId, environment.name, change, await requestActor(request, deps.auth), deps.allowFullPayloadCapture);
      if (outcome === 'not_found') throw new AppError('environment_not_found', 'The project has no environment of this name.');
      if (outcome === 'full_payload_not_allowed') {
        throw errors.invalidRequest('captureMode', 'full-payload is not allowed on this server: ALLOW_FULL_PAYLOAD_CAPTURE is not true.');
      }
      return { data: await detail(projectId, outcome) };
    },
  });

  defineRoute(app, {
    method: 'POST',
    url: '/v1/projects/:projectId/environments/:name/rename',
    options: withBody,
    contract: {
      ...common,
      summary: "Rename an environment (the project's admins); API keys and data stay with it",
      body: { schema: environmentRenameSchema, contentTypes: ['application/json'] },
      answers: { 200: { description: 'The environment under its new name, with its history.', schema: dataOf(environmentDetailSchema) } },
      errors: [...inEnvironment, ...bodyErrors, 'environment_exists'],
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      const { name } = parseBody(environmentRenameSchema, request.body);
      const outcome = await renameEnvironmentRecorded(db, projectId, (request.params as { name: string }).name, name, await requestActor(request, deps.auth));
      if (outcome === 'not_found') throw new AppError('environment_not_found', 'The project has no environment of this name.');
      if (outcome === 'exists') throw new AppError('environment_exists', 'The project has an environment of this name.', [{ path: 'name', message: 'taken' }]);
      return { data: await detail(projectId, outcome) };
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    url: '/v1/projects/:projectId/environments/:name',
    options: withBody,
    contract: {
      ...common,
      summary: "Remove an environment no API key, journey or alert rule uses (the project's admins)",
      answers: { 204: { description: 'Removed.' } },
      errors: [...inEnvironment, 'environment_in_use'],
    },
    handler: async (request, reply) => {
      const projectId = await projectOf(request);
      const outcome = await removeEnvironmentRecorded(db, projectId, (request.params as { name: string }).name, await requestActor(request, deps.auth));
      if (outcome === 'not_found') throw new AppError('environment_not_found', 'The project has no environment of this name.');
      if (outcome !== 'removed') {
        throw new AppError('environment_in_use', environmentUseMessage(outcome), [
          { path: 'apiKeys', message: String(outcome.apiKeys) },
          { path: 'journeys', message: String(outcome.journeys) },
          { path: 'alertRules', message: String(outcome.alertRules) },
        ]);
      }
      return reply.status(204).send();
    },
  });

  defineRoute(app, {
    method: 'POST',
    url: '/v1/projects/:projectId/environments/:name/capture-preview',
    options: withBody,
    contract: {
      ...common,
      summary: "What ingestion would store for an event under settings not saved yet (the project's admins)",
      body: { schema: capturePreviewSchema, contentTypes: ['application/json'] },
      answers: { 200: { description: 'The captured parts, or why ingestion would refuse the event.', schema: dataOf(previewAnswer) } },
      errors: [...inEnvironment, ...bodyErrors, 'not_found'],
    },
    handler: async (request) => {
      const { projectId, environment } = await environmentOf(request);
      const body = parseBody(capturePreviewSchema, request.body);
      if (body.eventId === undefined) {
        const ctx = { keyring: deps.keyring, environmentName: environment.name, settings: body.settings, allowFullPayloadCapture: deps.allowFullPayloadCapture, maxEventPayloadBytes: deps.maxEventPayloadBytes };
        return { data: previewEnvelopeCapture(body.envelope, ctx) };
      }
      const event = await getEventDetail(db, deps.keyring, { projectId, environmentId: environment.id }, body.eventId);
      if (event === null) throw errors.notFound('The event was not found in this environment.');
      return { data: previewStoredCapture(event, body.settings, deps.allowFullPayloadCapture) };
    },
  });
}
