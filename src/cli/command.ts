import type { CommandSpec, ParsedArgs } from './args.ts';
import type { CliContext } from './context.ts';

export interface Command {
  name: string;
  usage: string;
  summary: string;
  spec: CommandSpec;
  run(ctx: CliContext, args: ParsedArgs): Promise<number>;
}
