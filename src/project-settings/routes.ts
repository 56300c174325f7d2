import type { FastifyInstance } from 'fastify';
import type { AuthContext } from '../auth/credentials.ts';
import { requireAdmin } from '../auth/credentials.ts';
import { dataOf, itemsOf } from '../http/answers.ts';
import { projectSchema } from '../http/answer-schemas/reads.ts';
import { defineRoute } from '../http/route-contract.ts';
import { listProjects } from '../projects/projects-sql.ts';
import { visibleProjectIds } from './visibility.ts';

export function registerProjectRoutes(app: FastifyInstance, auth: AuthContext): void {
  defineRoute(app, {
    method: 'GET',
    url: '/v1/projects',
    contract: {
      summary: 'List projects',
      tag: 'admin',
      credential: (request) => requireAdmin(request, auth),
      security: ['adminToken'],
      query: {},
      answers: { 200: { description: 'Every project with its environments.', schema: dataOf(itemsOf(projectSchema)) } },
      errors: ['unauthorized', 'forbidden', 'too_many_attempts', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'],
    },
    handler: async (_request, _reply, { credential }) => {
      // A person sees the projects they hold a role in (an owner, every one).
      const visible = await visibleProjectIds(auth.db, credential);
      const items = (await listProjects(auth.db)).filter((project) => visible === 'all' || visible.has(project.id));
      return { data: { items: items.map(({ id, name, slug, environments }) => ({ id, name, slug, environments })) } };
    },
  });
}
