import { createCliContext } from './context.ts';
import { runCli } from './run.ts';
import { processIo } from './stdio.ts';

const context = createCliContext(process.env, processIo());
process.exitCode = await runCli(process.argv.slice(2), context);
