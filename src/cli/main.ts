import { createCliContext } from './context.ts';
import { runCli } from './run.ts';

const context = createCliContext(process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
process.exitCode = await runCli(process.argv.slice(2), context);
