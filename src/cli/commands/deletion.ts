import { parseErasureRequest } from '../../deletion/erasure-input.ts';
import { eraseIdentifier, previewErasure } from '../../deletion/erasure.ts';
import { deleteJourney } from '../../deletion/journey-delete.ts';
import type { MatchList } from '../../deletion/range-delete.ts';
import { InvalidDateError, parseDateRange, type DateRange } from '../../deletion/range-dates.ts';
import { deleteRange, previewRange, type RangeOutcome } from '../../deletion/range-delete.ts';
import { AppError } from '../../http/errors.ts';
import { formatTimestamp } from '../../protocol/timestamps.ts';
import { findEnvironment } from '../../projects/environments-sql.ts';
import { findProjectArgument, unknownProjectMessage } from '../project-argument.ts';
import { UsageError, single } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK, type CliContext, type CliServices } from '../context.ts';
import { withKeyedData } from './keyed-data.ts';

/**
 * The deletion commands call the same capability functions as the routes. Exit 1 whenever what
 * was asked did not fully happen (unknown project, environment or journey, a refused value or
 * date, the lock held, a run stopped part way); 2 only for argument errors.
 */

class NotDone extends Error {}

/** Runs fn with the project; refusals of the capability (AppError) and NotDone become exit 1. */
async function withProject(
  ctx: CliContext,
  slug: string,
  fn: (services: CliServices, projectId: string) => Promise<number>,
  options: { keyed?: boolean } = {},
): Promise<number> {
  type Body = (services: CliServices) => Promise<number>;
  const open = options.keyed === true ? (body: Body) => withKeyedData(ctx, body) : (body: Body) => ctx.withServices(body);
  return open(async (services) => {
    try {
      const project = await findProjectArgument(services.pool, slug);
      if (!project) throw new NotDone(unknownProjectMessage(slug));
      return await fn(services, project.id);
    } catch (error) {
      if (!(error instanceof NotDone || error instanceof AppError)) throw error;
      ctx.io.err(error.message);
      return EXIT_FAILED;
    }
  });
}

function printMatches(ctx: CliContext, list: MatchList): void {
  ctx.io.out(`would delete ${list.total} journey${list.total === 1 ? '' : 's'} (nothing was deleted)`);
  for (const j of list.journeys) {
    ctx.io.out(`${j.id}\t${j.environment}\t${j.entityType}\t${j.eventCount} events\tlast event ${formatTimestamp(j.lastEventAt.getTime())}`);
  }
  if (list.total > list.journeys.length) ctx.io.out(`... and ${list.total - list.journeys.length} more`);
}

export const deleteJourneyCommand: Command = {
  name: 'delete:journey',
  usage: 'delete:journey <project> <journey-id>',
  summary: 'delete one journey with its events, aliases and replay runs (writes journey.deleted)',
  spec: { positionals: ['project', 'journey-id'] },
  async run(ctx, args) {
    const journeyId = args.positionals['journey-id']!;
    return withProject(ctx, args.positionals.project!, async ({ pool }, projectId) => {
      const deleted = await deleteJourney(pool, projectId, journeyId);
      ctx.io.out(`deleted journey ${journeyId} from ${deleted.environment} (${deleted.eventCount} events)`);
      return EXIT_OK;
    });
  },
};

export const deleteIdentifierCommand: Command = {
  name: 'delete:identifier',
  usage: 'delete:identifier <project> <value> [--environment <name>] [--dry-run]',
  summary: 'erase every journey whose entity id or an alias is the value (writes erasure.completed)',
  spec: { positionals: ['project', 'value'], options: { '--environment': { value: true }, '--dry-run': {} } },
  async run(ctx, args) {
    const environment = single(args, '--environment');
    const body = { value: args.positionals.value!, ...(environment !== undefined ? { environment } : {}) };
    return withProject(ctx, args.positionals.project!, async ({ pool, keyring }, projectId) => {
      const request = parseErasureRequest(body);
      if (args.flags.has('--dry-run')) {
        printMatches(ctx, await previewErasure({ pool, keyring }, projectId, request));
        return EXIT_OK;
      }
      const result = await eraseIdentifier({ pool, keyring }, projectId, request);
      const summary = `deleted ${result.deletedJourneys} journeys (${result.deletedEvents} events)`;
      // A complete run with a message left journeys that received events meanwhile: not fully done.
      if (result.complete && result.message === undefined) {
        ctx.io.out(summary);
        return EXIT_OK;
      }
      throw new NotDone(`${summary}; ${result.message}`);
    }, { keyed: true });
  },
};

function reportRange(ctx: CliContext, outcome: RangeOutcome): number {
  if (outcome.kind === 'locked') {
    throw new NotDone('the retention sweep or another range deletion holds the deletion lock; nothing was deleted, try again later');
  }
  const summary = `deleted ${outcome.deletedJourneys} journeys (${outcome.deletedEvents} events) in ${outcome.batches} batches`;
  if (outcome.complete) {
    ctx.io.out(summary);
    return EXIT_OK;
  }
  const why = outcome.lockLost ? 'the deletion lock was lost' : `a batch failed (${outcome.errorType ?? 'error'})`;
  throw new NotDone(`${summary}, then stopped part way: ${why}; run the same command again to finish`);
}

export const deleteRangeCommand: Command = {
  name: 'delete:range',
  usage: 'delete:range <project> <environment> --before <date> [--after <date>] [--dry-run]',
  summary: "delete an environment's journeys whose last event is in [after, before) (writes range.deleted)",
  spec: {
    positionals: ['project', 'environment'],
    options: { '--before': { value: true }, '--after': { value: true }, '--dry-run': {} },
  },
  async run(ctx, args) {
    const before = single(args, '--before');
    if (before === undefined) throw new UsageError('--before is required');
    let range: DateRange;
    try {
      // Checked before the database is opened: a wrong date never costs a connection.
      range = parseDateRange(before, single(args, '--after'));
    } catch (error) {
      if (!(error instanceof InvalidDateError)) throw error;
      ctx.io.err(error.message);
      return EXIT_FAILED;
    }
    return withProject(ctx, args.positionals.project!, async ({ pool }, projectId) => {
      const environment = await findEnvironment(pool, projectId, args.positionals.environment!);
      if (!environment) throw new NotDone(`the project has no environment ${args.positionals.environment}`);
      const scope = { projectId, environmentId: environment.id };
      if (args.flags.has('--dry-run')) {
        printMatches(ctx, await previewRange(pool, scope, range));
        return EXIT_OK;
      }
      return reportRange(ctx, await deleteRange(pool, scope, range));
      // Keyed although it reads no keyed value: a process on a rotated-away key deletes nothing.
    }, { keyed: true });
  },
};
