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
process.exitCode = await runCli(process.argv.slice(2), context);
