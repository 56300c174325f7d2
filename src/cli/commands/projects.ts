import { MAX_SLUG_LENGTH, SLUG_PATTERN, createProject, findProjectBySlug, listProjects } from '../../projects/projects-sql.ts';
import { UsageError } from '../args.ts';
import { EXIT_FAILED, EXIT_OK, type CliContext } from '../context.ts';
import type { Command } from '../command.ts';

export const projectCreate: Command = {
  name: 'project:create',
  usage: 'project:create <slug> <name...>',
  summary: 'create a project',
  spec: { positionals: ['slug', 'name...'] },
  async run(ctx: CliContext, args) {
    const slug = args.positionals.slug!;
    const name = args.positionals.name!.trim();
    if (!SLUG_PATTERN.test(slug) || slug.length > MAX_SLUG_LENGTH) {
      throw new UsageError(`the slug must be lowercase letters, digits and single hyphens, at most ${MAX_SLUG_LENGTH} characters`);
    }
    if (name === '' || name.length > 200) throw new UsageError('the name must be 1 to 200 characters');
    return ctx.withServices(async ({ pool }) => {
      if (await findProjectBySlug(pool, slug)) {
        ctx.io.err(`a project with the slug ${slug} already exists`);
        return EXIT_FAILED;
      }
      const project = await createProject(pool, slug, name);
      ctx.io.out(`created project ${project.slug} (${project.id})`);
      return EXIT_OK;
    });
  },
};

export const projectList: Command = {
  name: 'project:list',
  usage: 'project:list',
  summary: 'list projects with their environments',
  spec: { positionals: [] },
  async run(ctx) {
    return ctx.withServices(async ({ pool }) => {
      const projects = await listProjects(pool);
      if (projects.length === 0) ctx.io.out('no projects');
      for (const project of projects) {
        ctx.io.out(`${project.slug}\t${project.id}\t${project.name}\tenvironments: ${project.environments.join(', ') || '-'}`);
      }
      return EXIT_OK;
    });
  },
};
