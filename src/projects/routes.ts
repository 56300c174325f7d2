import type { FastifyInstance } from 'fastify';
import type { AuthContext } from '../auth/credentials.ts';
import { requireAdmin } from '../auth/credentials.ts';
import { parseQuery } from '../http/query.ts';
import { listProjects } from './projects-sql.ts';

export function registerProjectRoutes(app: FastifyInstance, auth: AuthContext): void {
  app.get('/v1/projects', async (request) => {
    await requireAdmin(request, auth);
    parseQuery(request.raw.url ?? '', []);
    const items = await listProjects(auth.db);
    return { data: { items: items.map(({ id, name, slug, environments }) => ({ id, name, slug, environments })) } };
  });
}
