// Routes of alert rules and their delivery log (docs/alerts.md); admin only, the project is the
// path's (by id or slug).

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { adminBeforeBody, authorizeProjectInPath, requireAdmin, type AuthContext } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { alertDeliverySchema, alertRuleSchema, alertTestDeliverySchema, newAlertRuleSchema } from '../http/answer-schemas/findings.ts';
import { sendTestDelivery } from './test-send.ts';
import { dataOf, itemsOf } from '../http/answers.ts';
import { AppError, errors } from '../http/errors.ts';
import { issueDetails } from '../http/body-fields.ts';
import type { z } from 'zod';
import { defineRoute, JSON_BODY_ERRORS } from '../http/route-contract.ts';
import { findProjectBySlug } from '../projects/projects-sql.ts';
import { alertRuleInputSchema, alertRulePatchSchema } from './rule-input.ts';
import { createRule, editRule, listDeliveries, listRules, muteRule, removeRule } from './rules.ts';

export function registerAlertRoutes(app: FastifyInstance, deps: { auth: AuthContext; keyring: Keyring; allowedHosts: readonly string[]; version?: string }): void {
  const db = deps.auth.db;
  const admin = { tag: 'alerts', credential: (request: FastifyRequest) => requireAdmin(request, deps.auth), security: ['adminToken'], query: {} } as const;
  const adminErrors = ['unauthorized', 'too_many_attempts', 'project_not_found', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'] as const;
  const bodyErrors = JSON_BODY_ERRORS;
  const projectOf = async (request: FastifyRequest): Promise<string> => {
    // By id or slug; a person needs the route's role in that project (src/auth/policy.ts).
    const key = (request.params as { projectId: string }).projectId;
    const bySlug = /^[0-9a-f-]{36}$/i.test(key) || key.length > 64 ? null : await findProjectBySlug(db, key);
    return authorizeProjectInPath(request, deps.auth, bySlug?.id ?? key);
  };
  const ruleIdOf = (request: FastifyRequest) => (request.params as { ruleId: string }).ruleId;
  const body = <T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[] }> } } }, value: unknown): T => {
    const parsed = schema.safeParse(value);
    // Every problem in details, each with its field's path, so a form can name the fields.
    if (!parsed.success) throw new AppError('invalid_request', 'The body is not a valid alert rule (docs/alerts.md).', issueDetails(parsed.error.issues as z.core.$ZodIssue[]));
    return parsed.data;
  };
  const base = '/v1/projects/:projectId/alert-rules';

  defineRoute(app, {
    method: 'POST',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: base,
    contract: {
      ...admin,
      summary: 'Create an alert rule',
      body: { schema: alertRuleInputSchema, contentTypes: ['application/json'] },
      answers: { 201: { description: 'The rule with its signing secret, shown this once.', schema: dataOf(newAlertRuleSchema) } },
      errors: [...adminErrors, ...bodyErrors, 'environment_not_found'],
    },
    handler: async (request, reply) => {
      const projectId = await projectOf(request);
      const rule = await createRule({ db, keyring: deps.keyring, allowedHosts: deps.allowedHosts }, projectId, body(alertRuleInputSchema, request.body));
      return reply.status(201).send({ data: rule });
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: base,
    contract: { ...admin, summary: 'List alert rules', answers: { 200: { description: 'The rules of the project.', schema: dataOf(itemsOf(alertRuleSchema)) } }, errors: adminErrors },
    handler: async (request) => ({ data: { items: await listRules(db, await projectOf(request)) } }),
  });

  defineRoute(app, {
    method: 'PATCH',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: `${base}/:ruleId`,
    contract: {
      ...admin,
      summary: 'Change an alert rule (its fields, checked as on creation) and/or mute it until a time, or unmute it (null)',
      body: { schema: alertRulePatchSchema, contentTypes: ['application/json'] },
      answers: { 200: { description: 'The rule.', schema: dataOf(alertRuleSchema) } },
      errors: [...adminErrors, ...bodyErrors, 'not_found', 'environment_not_found'],
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      const { mutedUntil, ...fields } = body(alertRulePatchSchema, request.body);
      let rule = null;
      if (Object.keys(fields).length > 0) rule = await editRule({ db, keyring: deps.keyring, allowedHosts: deps.allowedHosts }, projectId, ruleIdOf(request), fields);
      if (mutedUntil !== undefined) rule = await muteRule(db, projectId, ruleIdOf(request), mutedUntil === null ? null : new Date(mutedUntil));
      if (rule === null) throw errors.notFound('The alert rule was not found.');
      return { data: rule };
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: `${base}/:ruleId`,
    contract: { ...admin, summary: 'Delete an alert rule', answers: { 204: { description: 'Deleted with its outbox and delivery log.' } }, errors: [...adminErrors, 'not_found'] },
    handler: async (request, reply) => {
      if (!(await removeRule(db, await projectOf(request), ruleIdOf(request)))) throw errors.notFound('The alert rule was not found.');
      return reply.status(204).send();
    },
  });

  defineRoute(app, {
    method: 'POST',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: `${base}/:ruleId/test`,
    contract: {
      ...admin,
      summary: "Send a signed test delivery to an alert rule's receiver and answer what it said",
      answers: { 200: { description: 'The outcome: sent (2xx), error_status, failed (no answer) or blocked (host not allowed); nothing is logged.', schema: dataOf(alertTestDeliverySchema) } },
      errors: [...adminErrors, 'not_found'],
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      const deliveryDeps = { db, keyring: deps.keyring, allowedHosts: deps.allowedHosts, version: deps.version ?? '0.0.0' };
      return { data: await sendTestDelivery(deliveryDeps, projectId, ruleIdOf(request), deps.auth.now()) };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: `${base}/:ruleId/deliveries`,
    contract: { ...admin, summary: 'The delivery log of an alert rule', answers: { 200: { description: 'Attempts, newest first (at most 200).', schema: dataOf(itemsOf(alertDeliverySchema)) } }, errors: [...adminErrors, 'not_found'] },
    handler: async (request) => {
      const items = await listDeliveries(db, await projectOf(request), ruleIdOf(request));
      if (items === null) throw errors.notFound('The alert rule was not found.');
      return { data: { items } };
    },
  });
}
