import { ConfigError } from '../config/config.ts';
import { UsageError, parseArgs } from './args.ts';
import type { Command } from './command.ts';
import { alertList, alertMute } from './commands/alerts.ts';
import { problemList, problemSetStatus, problemsCommand } from './commands/problems.ts';
import { deleteIdentifierCommand, deleteJourneyCommand, deleteRangeCommand } from './commands/deletion.ts';
import { deleteDestinationCommand, destinationDisable, destinationEnable } from './commands/destinations.ts';
import { environmentSet, environmentShow } from './commands/environments.ts';
import { expectationSet, expectationShow, expectationSuggest } from './commands/expectations.ts';
import { keyCreate, keyList, keyRevoke } from './commands/keys.ts';
import { migrateCommand, migrateUnlock } from './commands/migrations.ts';
import { projectCreate, projectList, projectRename } from './commands/projects.ts';
import { rotateReencrypt, rotateStatus } from './commands/rotation.ts';
import { doctor } from './commands/doctor.ts';
import { demoCommand } from './commands/demo.ts';
import { problemReplay, problemReplayCancel, problemReplayStatus } from './commands/problem-replay.ts';
import { userCreate, userDisable, userEnable, userGrant, userList, userReset, userRevoke } from './commands/users.ts';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliContext } from './context.ts';

export const COMMANDS: Command[] = [
  projectCreate,
  projectRename,
  projectList,
  keyCreate,
  keyList,
  keyRevoke,
  userCreate,
  userList,
  userDisable,
  userEnable,
  userGrant,
  userRevoke,
  userReset,
  environmentSet,
  environmentShow,
  expectationSet,
  expectationShow,
  expectationSuggest,
  alertList,
  alertMute,
  problemList,
  problemsCommand,
  problemSetStatus,
  migrateCommand,
  migrateUnlock,
  deleteJourneyCommand,
  deleteIdentifierCommand,
  deleteRangeCommand,
  destinationDisable,
  destinationEnable,
  deleteDestinationCommand,
  rotateReencrypt,
  rotateStatus,
  doctor,
  demoCommand,
  problemReplay,
  problemReplayStatus,
  problemReplayCancel,
];

function overview(ctx: CliContext): void {
  ctx.io.out('usage: jtrace <command> [arguments]');
  ctx.io.out('');
  for (const command of COMMANDS) ctx.io.out(`  ${command.usage}\n      ${command.summary}`);
  ctx.io.out('');
  ctx.io.out('A value that begins with a dash goes after --. Run jtrace <command> --help for one command.');
}

/** Runs one command and returns its exit status; never calls process.exit itself. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    overview(ctx);
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    ctx.io.err(`jtrace: unknown command ${JSON.stringify(name)}; run jtrace --help for the list`);
    return EXIT_USAGE;
  }
  try {
    const args = parseArgs(rest, command.spec);
    if (args.help) {
      ctx.io.out(`usage: jtrace ${command.usage}\n\n${command.summary}`);
      return EXIT_OK;
    }
    return await command.run(ctx, args);
  } catch (error) {
    if (error instanceof UsageError) {
      ctx.io.err(`jtrace ${command.name}: ${error.message}`);
      ctx.io.err(`usage: jtrace ${command.usage}`);
      return EXIT_USAGE;
    }
    if (error instanceof ConfigError) {
      ctx.io.err(`jtrace: configuration error: ${error.message}`);
      return EXIT_FAILED;
    }
    // Database error text may quote values: name only its class and code.
    const code = (error as { code?: unknown }).code;
    ctx.io.err(`jtrace ${command.name}: failed (${error instanceof Error ? error.name : 'error'}${typeof code === 'string' ? ` ${code}` : ''})${error instanceof Error && !('code' in error) ? `: ${error.message}` : ''}`);
    return EXIT_FAILED;
  }
}
