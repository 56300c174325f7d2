import { createCliContext } from './context.ts';
import { runCli } from './run.ts';
import { processIo } from './stdio.ts';

const context = createCliContext(process.env, {
  ...processIo(),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
});
// Only a person at a terminal can stop a command that keeps serving (the demo's fixed service).
if (process.stdout.isTTY) context.untilInterrupted = () => new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
process.exitCode = await runCli(process.argv.slice(2), context);
