import { deleteExpectation, listExpectations, parseExpectation, saveExpectation, suggestFromHistory, type StoredExpectation } from '../../findings/expectations.ts';
import { UsageError, single, type ParsedArgs } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK, type CliIo } from '../context.ts';
import { projectOrReport } from '../project-argument.ts';

function show(io: CliIo, expectation: Omit<StoredExpectation, 'updatedAt'>): void {
  io.out(`entity type: ${expectation.entityType}`);
  io.out(`steps: ${expectation.steps.length ? expectation.steps.map((s) => (s.optional ? `${s.name} (optional)` : s.name)).join(' -> ') : '(none)'}`);
  io.out(`final step: ${expectation.finalStep}`);
  io.out(`longest gap: ${expectation.maxGapSeconds === null ? '(none)' : `${expectation.maxGapSeconds} s`}`);
  io.out(`deadline: ${expectation.deadlineSeconds === null ? '(none)' : `${expectation.deadlineSeconds} s`}`);
}

function seconds(args: ParsedArgs, flag: string): number | null {
  const value = single(args, flag);
  if (value === undefined) return null;
  if (!/^\d{1,8}$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} must be a whole number of seconds, at least 1`);
  return Number(value);
}

export const expectationSet: Command = {
  name: 'expectation:set',
  usage: 'expectation:set <project> <entity-type> --final STEP [--step NAME ...] [--optional NAME ...] [--max-gap SECONDS] [--deadline SECONDS]',
  summary: 'state what a journey of an entity type should look like (steps in order, final step, longest gap, deadline)',
  spec: {
    positionals: ['project', 'entityType'],
    options: { '--final': { value: true }, '--step': { value: true, repeat: true }, '--optional': { value: true, repeat: true }, '--max-gap': { value: true }, '--deadline': { value: true } },
  },
  async run(ctx, args) {
    const finalStep = single(args, '--final');
    if (finalStep === undefined) throw new UsageError('--final is required');
    const optional = new Set(args.values.get('--optional') ?? []);
    const names = args.values.get('--step') ?? [];
    const unknown = [...optional].find((name) => !names.includes(name));
    if (unknown !== undefined) throw new UsageError(`--optional ${JSON.stringify(unknown)} is not one of the --step names`);
    const parsed = parseExpectation({
      steps: names.map((name) => ({ name, optional: optional.has(name) })),
      finalStep,
      maxGapSeconds: seconds(args, '--max-gap'),
      deadlineSeconds: seconds(args, '--deadline'),
    });
    if (!parsed.ok) throw new UsageError(`the expectation is not valid at ${parsed.path || 'its root'}`);
    return ctx.withServices(async ({ pool }) => {
      const project = await projectOrReport(pool, ctx.io, args.positionals.project!);
      if (!project) return EXIT_FAILED;
      show(ctx.io, await saveExpectation(pool, project.id, args.positionals.entityType!, parsed.value));
      return EXIT_OK;
    });
  },
};

export const expectationShow: Command = {
  name: 'expectation:show',
  usage: 'expectation:show <project> [--remove ENTITY-TYPE]',
  summary: 'show the expectations of a project, or remove one',
  spec: { positionals: ['project'], options: { '--remove': { value: true } } },
  async run(ctx, args) {
    return ctx.withServices(async ({ pool }) => {
      const project = await projectOrReport(pool, ctx.io, args.positionals.project!);
      if (!project) return EXIT_FAILED;
      const remove = single(args, '--remove');
      if (remove !== undefined) {
        if (!(await deleteExpectation(pool, project.id, remove))) {
          ctx.io.err(`the entity type ${remove} has no expectation`);
          return EXIT_FAILED;
        }
        ctx.io.out(`removed the expectation of ${remove}`);
        return EXIT_OK;
      }
      const all = await listExpectations(pool, project.id);
      if (all.length === 0) ctx.io.out('(no expectations)');
      all.forEach((expectation, index) => {
        if (index > 0) ctx.io.out('');
        show(ctx.io, expectation);
      });
      return EXIT_OK;
    });
  },
};

export const expectationSuggest: Command = {
  name: 'expectation:suggest',
  usage: 'expectation:suggest <project> <entity-type> [--journeys N]',
  summary: 'propose an expectation from the last N completed journeys (100 by default); nothing is saved',
  spec: { positionals: ['project', 'entityType'], options: { '--journeys': { value: true } } },
  async run(ctx, args) {
    const raw = single(args, '--journeys') ?? '100';
    if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000) throw new UsageError('--journeys must be a whole number from 1 to 1000');
    return ctx.withServices(async ({ pool }) => {
      const project = await projectOrReport(pool, ctx.io, args.positionals.project!);
      if (!project) return EXIT_FAILED;
      const entityType = args.positionals.entityType!;
      const suggestion = await suggestFromHistory(pool, project.id, entityType, Number(raw));
      ctx.io.out(`from ${suggestion.journeys} completed journeys`);
      if (suggestion.finalStep === null) return EXIT_OK;
      show(ctx.io, { entityType, steps: suggestion.steps, finalStep: suggestion.finalStep, maxGapSeconds: suggestion.maxGapSeconds, deadlineSeconds: suggestion.deadlineSeconds });
      const quote = (value: string) => (/^[\w.:-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`);
      const parts = [`jtrace expectation:set ${quote(project.slug)} ${quote(entityType)} --final ${quote(suggestion.finalStep)}`];
      for (const step of suggestion.steps) parts.push(`--step ${quote(step.name)}`);
      for (const step of suggestion.steps.filter((s) => s.optional)) parts.push(`--optional ${quote(step.name)}`);
      if (suggestion.maxGapSeconds !== null) parts.push(`--max-gap ${suggestion.maxGapSeconds}`);
      if (suggestion.deadlineSeconds !== null) parts.push(`--deadline ${suggestion.deadlineSeconds}`);
      ctx.io.out('');
      ctx.io.out(`to save it (edit first if needed): ${parts.join(' ')}`);
      return EXIT_OK;
    });
  },
};
