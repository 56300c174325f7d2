// `jtrace problem:list` (also `jtrace problems`) and `jtrace problem:set-status`: the problems of
// a project and their triage (docs/problems.md), through the same functions as the API.

import { AppError } from '../../http/errors.ts';
import { CLI_ACTOR } from '../../audit/audit-log.ts';
import { parseFilters, parsePage } from '../../problems/list-query.ts';
import { setProblemStatus, statusChangeSchema } from '../../problems/problem-status.ts';
import { problemView, type ProblemView } from '../../problems/problem-view.ts';
import { selectProblems } from '../../problems/problems-sql.ts';
import { parseTimestamp } from '../../protocol/timestamps.ts';
import { UsageError, single } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK } from '../context.ts';
import { projectOrReport } from '../project-argument.ts';

const FILTERS = ['status', 'kind', 'path', 'service', 'environment', 'release', 'since', 'sort', 'limit'] as const;

/** One line: status, journeys, what and where, the id last (to copy into problem:set-status). */
export function problemLine(p: ProblemView): string {
  const place = p.inTransit && p.from !== null ? `between ${p.from.name} and ${p.step?.name ?? '?'}` : p.step === null ? (p.from === null ? '' : `after ${p.from.name}`) : `at ${p.step.name}`;
  const came = p.regression === null ? '' : `  came back ${p.regression.since}${p.regression.release === null ? '' : ` in ${p.regression.release}`}`;
  return `${p.status.padEnd(9)} ${String(p.journeys).padStart(6)} journeys  ${p.kind} ${p.path ?? ''} ${place}  [${p.environment}]${came}  ${p.id}`;
}

const list = (name: string): Command => ({
  name,
  usage: `${name} <project> [--status S,S|all] [--kind K] [--path P] [--service S] [--environment E] [--release R] [--since T] [--sort journeys|lastSeen|firstSeen] [--limit N] [--json]`,
  summary: 'list the problems of a project: findings grouped by kind, field and place, with their status',
  spec: { positionals: ['project'], options: { ...Object.fromEntries(FILTERS.map((f) => [`--${f}`, { value: true }])), '--json': {} } },
  async run(ctx, args) {
    const query = Object.fromEntries(FILTERS.map((f) => [f, single(args, `--${f}`)]).filter(([, v]) => v !== undefined));
    let filters;
    let page;
    try {
      filters = parseFilters(query);
      page = parsePage(query);
    } catch (error) {
      if (error instanceof AppError) throw new UsageError(error.message);
      throw error;
    }
    return ctx.withServices(async ({ pool }) => {
      const project = await projectOrReport(pool, ctx.io, args.positionals.project!);
      if (!project) return EXIT_FAILED;
      const problems = (await selectProblems(pool, project.id, filters, page, new Date())).map(problemView);
      if (args.flags.has('--json')) {
        ctx.io.out(JSON.stringify(problems));
        return EXIT_OK;
      }
      for (const p of problems) ctx.io.out(problemLine(p));
      if (problems.length === 0) ctx.io.out('(no problems)');
      return EXIT_OK;
    });
  },
});

export const problemList = list('problem:list');
export const problemsCommand = list('problems');

export const problemSetStatus: Command = {
  name: 'problem:set-status',
  usage: 'problem:set-status <project> <problem-id> <open|resolved|ignored|expected> [--next-release] [--until T] [--more-journeys N]',
  summary: 'resolve (optionally in the next release), ignore (until a time or N more journeys), mark expected or reopen a problem',
  spec: { positionals: ['project', 'problemId', 'status'], options: { '--next-release': {}, '--until': { value: true }, '--more-journeys': { value: true } } },
  async run(ctx, args) {
    const until = single(args, '--until');
    const more = single(args, '--more-journeys');
    if (until !== undefined && (parseTimestamp(until) === null || parseTimestamp(until)! <= Date.now())) throw new UsageError('--until must be a future ISO 8601 timestamp with a time zone');
    if (more !== undefined && !/^\d{1,7}$/.test(more)) throw new UsageError('--more-journeys must be a whole number');
    const parsed = statusChangeSchema.safeParse({
      status: args.positionals.status,
      ...(args.flags.has('--next-release') ? { inNextRelease: true } : {}),
      ...(until === undefined ? {} : { until }),
      ...(more === undefined ? {} : { moreJourneys: Number(more) }),
    });
    if (!parsed.success) throw new UsageError('the status is open, resolved (--next-release), ignored (--until, --more-journeys) or expected, with only its own options');
    return ctx.withServices(async ({ pool }) => {
      const project = await projectOrReport(pool, ctx.io, args.positionals.project!);
      if (!project) return EXIT_FAILED;
      const id = args.positionals.problemId!;
      const found = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) && (await setProblemStatus(pool, project.id, id, parsed.data, new Date(), CLI_ACTOR));
      if (!found) {
        ctx.io.err(`no problem ${id} in ${project.slug}`);
        return EXIT_FAILED;
      }
      ctx.io.out(`${id}: ${parsed.data.status}`);
      return EXIT_OK;
    });
  },
};
