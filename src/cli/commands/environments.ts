import { isValidRedactionRule } from '../../protocol/redaction/operator-rules.ts';
import {
  CAPTURE_MODES,
  findEnvironment,
  updateEnvironment,
  type CaptureMode,
  type EnvironmentChanges,
  type EnvironmentRow,
} from '../../projects/environments-sql.ts';
import { UsageError, single, type ParsedArgs } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK, type CliIo } from '../context.ts';
import { findProjectArgument, unknownProjectMessage } from '../project-argument.ts';

function show(io: CliIo, slug: string, environment: EnvironmentRow): void {
  io.out(`project: ${slug}`);
  io.out(`environment: ${environment.name}`);
  io.out(`capture mode: ${environment.captureMode}`);
  io.out(`retention days: ${environment.retentionDays}`);
  io.out(`redaction rules: ${environment.redactionPaths.length ? environment.redactionPaths.join(' ') : '(none)'}`);
  io.out(`capture allowlist: ${environment.captureAllowlist.length ? environment.captureAllowlist.join(' ') : '(none)'}`);
}

/** A flag that is given replaces that setting; what is not named stays as it was. */
function changesFrom(args: ParsedArgs): EnvironmentChanges {
  const changes: EnvironmentChanges = {};
  const mode = single(args, '--capture-mode');
  if (mode !== undefined) {
    if (!(CAPTURE_MODES as readonly string[]).includes(mode)) {
      throw new UsageError(`--capture-mode must be one of ${CAPTURE_MODES.join(', ')}`);
    }
    changes.captureMode = mode as CaptureMode;
  }
  const retention = single(args, '--retention-days');
  if (retention !== undefined) {
    if (!/^\d+$/.test(retention) || Number(retention) < 1 || Number(retention) > 36_500) {
      throw new UsageError('--retention-days must be a whole number from 1 to 36500');
    }
    changes.retentionDays = Number(retention);
  }
  const redact = args.values.get('--redact');
  if (redact && args.flags.has('--clear-redact')) throw new UsageError('give either --redact or --clear-redact');
  if (redact) {
    const bad = redact.find((rule) => !isValidRedactionRule(rule));
    if (bad !== undefined) throw new UsageError(`the redaction rule ${JSON.stringify(bad)} is malformed`);
    changes.redactionPaths = redact;
  }
  if (args.flags.has('--clear-redact')) changes.redactionPaths = [];
  const allow = args.values.get('--allow');
  if (allow && args.flags.has('--clear-allow')) throw new UsageError('give either --allow or --clear-allow');
  if (allow) {
    const bad = allow.find((path) => path === '' || path.split('.').some((segment) => segment === ''));
    if (bad !== undefined) throw new UsageError(`the allowlist path ${JSON.stringify(bad)} is malformed`);
    changes.captureAllowlist = allow;
  }
  if (args.flags.has('--clear-allow')) changes.captureAllowlist = [];
  return changes;
}

export const environmentSet: Command = {
  name: 'environment:set',
  usage:
    'environment:set <project> <environment> [--capture-mode MODE] [--retention-days N] [--redact RULE ...] [--clear-redact] [--allow PATH ...] [--clear-allow]',
  summary: 'change capture mode, retention, redaction rules or the capture allowlist',
  spec: {
    positionals: ['project', 'environment'],
    options: {
      '--capture-mode': { value: true },
      '--retention-days': { value: true },
      '--redact': { value: true, repeat: true },
      '--clear-redact': {},
      '--allow': { value: true, repeat: true },
      '--clear-allow': {},
    },
  },
  async run(ctx, args) {
    const changes = changesFrom(args);
    return ctx.withServices(async ({ pool }) => {
      const project = await findProjectArgument(pool, args.positionals.project!);
      if (!project) {
        ctx.io.err(unknownProjectMessage(args.positionals.project!));
        return EXIT_FAILED;
      }
      const updated = await updateEnvironment(pool, project.id, args.positionals.environment!, changes);
      if (!updated) {
        ctx.io.err(`the project ${project.slug} has no environment ${args.positionals.environment}`);
        return EXIT_FAILED;
      }
      show(ctx.io, project.slug, updated);
      return EXIT_OK;
    });
  },
};

export const environmentShow: Command = {
  name: 'environment:show',
  usage: 'environment:show <project> <environment>',
  summary: 'show capture mode, retention, redaction rules and allowlist',
  spec: { positionals: ['project', 'environment'] },
  async run(ctx, args) {
    return ctx.withServices(async ({ pool }) => {
      const project = await findProjectArgument(pool, args.positionals.project!);
      const environment = project ? await findEnvironment(pool, project.id, args.positionals.environment!) : null;
      if (!project || !environment) {
        ctx.io.err(`no environment ${args.positionals.environment} in a project ${args.positionals.project}`);
        return EXIT_FAILED;
      }
      show(ctx.io, project.slug, environment);
      return EXIT_OK;
    });
  },
};
