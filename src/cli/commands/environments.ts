import { CLI_ACTOR } from '../../audit/audit-log.ts';
import { CAPTURE_MODES, findEnvironment, type EnvironmentRow } from '../../projects/environments-sql.ts';
import { changeEnvironment } from '../../projects/settings.ts';
import { checkEnvironmentChange, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, type EnvironmentChange } from '../../projects/settings-input.ts';
import { UsageError, single, type ParsedArgs } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK, type CliIo } from '../context.ts';
import { findProjectArgument, projectOrReport } from '../project-argument.ts';

function show(io: CliIo, slug: string, environment: EnvironmentRow): void {
  io.out(`project: ${slug}`);
  io.out(`environment: ${environment.name}`);
  io.out(`capture mode: ${environment.captureMode}`);
  io.out(`retention days: ${environment.retentionDays}`);
  io.out(`redaction rules: ${environment.redactionPaths.length ? environment.redactionPaths.join(' ') : '(none)'}`);
  io.out(`capture allowlist: ${environment.captureAllowlist.length ? environment.captureAllowlist.join(' ') : '(none)'}`);
}

const FLAG_OF: Record<string, string> = {
  captureMode: '--capture-mode',
  retentionDays: '--retention-days',
  redactionPaths: '--redact',
  captureAllowlist: '--allow',
};

/** A flag that is given replaces that setting; what is not named stays as it was. The rules are the route's (settings-input.ts). */
function changesFrom(args: ParsedArgs): EnvironmentChange {
  const raw: Record<string, unknown> = {};
  const mode = single(args, '--capture-mode');
  if (mode !== undefined) raw.captureMode = mode;
  const retention = single(args, '--retention-days');
  if (retention !== undefined) {
    if (!/^\d+$/.test(retention)) throw new UsageError(`--retention-days must be a whole number from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}`);
    raw.retentionDays = Number(retention);
  }
  const redact = args.values.get('--redact');
  if (redact && args.flags.has('--clear-redact')) throw new UsageError('give either --redact or --clear-redact');
  if (redact) raw.redactionPaths = redact;
  if (args.flags.has('--clear-redact')) raw.redactionPaths = [];
  const allow = args.values.get('--allow');
  if (allow && args.flags.has('--clear-allow')) throw new UsageError('give either --allow or --clear-allow');
  if (allow) raw.captureAllowlist = allow;
  if (args.flags.has('--clear-allow')) raw.captureAllowlist = [];
  const checked = checkEnvironmentChange(raw);
  if (!checked.ok) {
    const [field, index] = checked.path.split('.');
    const flag = FLAG_OF[field ?? ''] ?? field;
    if (field === 'captureMode') throw new UsageError(`--capture-mode must be one of ${CAPTURE_MODES.join(', ')}`);
    if (field === 'retentionDays') throw new UsageError(`--retention-days must be a whole number from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}`);
    const list = field === 'redactionPaths' ? redact : allow;
    const value = index === undefined ? undefined : list?.[Number(index)];
    const what = field === 'redactionPaths' ? 'the redaction rule' : 'the allowlist path';
    throw new UsageError(value === undefined ? `${flag}: ${checked.message}` : `${what} ${JSON.stringify(value)} ${checked.message}`);
  }
  return checked.change;
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
      const project = await projectOrReport(pool, ctx.io, args.positionals.project!);
      if (!project) return EXIT_FAILED;
      // The CLI has no server flag to consult: full-payload is stored and acts as redacted-payload
      // on a server without ALLOW_FULL_PAYLOAD_CAPTURE (event protocol 5.3).
      const updated = await changeEnvironment(pool, project.id, args.positionals.environment!, changes, CLI_ACTOR, null);
      if (typeof updated === 'string') {
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
