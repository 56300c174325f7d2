import type { ProjectRow } from '../../projects/projects-sql.ts';
import { classifyDestinationId, deleteDestination, setDestinationDisabled } from '../../replay/destinations.ts';
import { UsageError, type ParsedArgs } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK, type CliIo } from '../context.ts';
import { projectOrReport } from '../project-argument.ts';

/** The route's rule: NUL or over 512 characters is a bad argument; other non-uuids name nothing. */
function destinationIdArgument(args: ParsedArgs): string {
  const id = args.positionals['destination-id']!;
  if (classifyDestinationId(id) === 'invalid') {
    throw new UsageError('the destination id holds a NUL character or is longer than 512 characters');
  }
  return id.toLowerCase();
}

function unknownDestination(io: CliIo, project: ProjectRow, id: string): number {
  io.err(`the project ${project.slug} has no replay destination ${JSON.stringify(id.slice(0, 64))}`);
  return EXIT_FAILED;
}

function toggle(disabled: boolean): Command {
  const name = disabled ? 'destination:disable' : 'destination:enable';
  return {
    name,
    usage: `${name} <project> <destination-id>`,
    summary: disabled ? 'stop replays to a destination (they answer 409 destination_disabled)' : 'allow replays to a disabled destination again',
    spec: { positionals: ['project', 'destination-id'] },
    async run(ctx, args) {
      const id = destinationIdArgument(args);
      return ctx.withServices(async ({ pool }) => {
        const project = await projectOrReport(pool, ctx.io, args.positionals.project!);
        if (!project) return EXIT_FAILED;
        const destination = await setDestinationDisabled(pool, project.id, id, disabled);
        if (!destination) return unknownDestination(ctx.io, project, id);
        ctx.io.out(`${disabled ? 'disabled' : 'enabled'} replay destination ${destination.id} (${destination.name})`);
        return EXIT_OK;
      });
    },
  };
}

export const destinationDisable = toggle(true);
export const destinationEnable = toggle(false);

export const deleteDestinationCommand: Command = {
  name: 'delete:destination',
  usage: 'delete:destination <project> <destination-id>',
  summary: 'delete a replay destination and every replay run sent to it; writes replay_destination.deleted',
  spec: { positionals: ['project', 'destination-id'] },
  async run(ctx, args) {
    const id = destinationIdArgument(args);
    return ctx.withServices(async ({ pool }) => {
      const project = await projectOrReport(pool, ctx.io, args.positionals.project!);
      if (!project) return EXIT_FAILED;
      const deleted = await deleteDestination(pool, project.id, id);
      if (!deleted) return unknownDestination(ctx.io, project, id);
      ctx.io.out(`deleted replay destination ${deleted.destinationId} (${deleted.name}) and ${deleted.runsDeleted} replay run(s)`);
      return EXIT_OK;
    });
  },
};
