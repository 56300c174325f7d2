import { CLI_ACTOR } from '../../audit/audit-log.ts';
import { MAX_SLUG_LENGTH, SLUG_PATTERN, listProjects } from '../../projects/projects-sql.ts';
import { createProjectRecorded, renameProjectRecorded } from '../../projects/settings.ts';
import { MAX_PROJECT_NAME_CHARS } from '../../projects/settings-input.ts';
import { findProjectArgument, unknownProjectMessage } from '../project-argument.ts';
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
    if (name === '' || name.length > MAX_PROJECT_NAME_CHARS) throw new UsageError(`the name must be 1 to ${MAX_PROJECT_NAME_CHARS} characters`);
    return ctx.withServices(async ({ pool }) => {
      const project = await createProjectRecorded(pool, { slug, name }, CLI_ACTOR);
      if (project === 'slug_taken') {
        ctx.io.err(`a project with the slug ${slug} already exists`);
        return EXIT_FAILED;
      }
      ctx.io.out(`created project ${project.slug} (${project.id})`);
      return EXIT_OK;
    });
  },
};

export const projectRename: Command = {
  name: 'project:rename',
  usage: 'project:rename <project> <name...>',
  summary: "change a project's name (its slug stays)",
  spec: { positionals: ['project', 'name...'] },
  async run(ctx: CliContext, args) {
    const name = args.positionals.name!.trim();
    if (name === '' || name.length > MAX_PROJECT_NAME_CHARS) throw new UsageError(`the name must be 1 to ${MAX_PROJECT_NAME_CHARS} characters`);
    return ctx.withServices(async ({ pool }) => {
      const project = await findProjectArgument(pool, args.positionals.project!);
      const renamed = project === null ? null : await renameProjectRecorded(pool, project.id, name, CLI_ACTOR);
      if (renamed === null) {
        ctx.io.err(unknownProjectMessage(args.positionals.project!));
        return EXIT_FAILED;
      }
      ctx.io.out(`renamed project ${renamed.slug}`);
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
