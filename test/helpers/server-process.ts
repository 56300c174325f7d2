import { spawn, type ChildProcess } from 'node:child_process';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY } from './app.ts';
import { freePort } from './free-port.ts';

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** What the process wrote to stderr so far. */
  stderr(): string;
}

/** The server from its sources; the build test passes the compiled entry instead. */
const SOURCE_ENTRY = ['--import', 'tsx', 'src/main.ts'];

/**
 * The real entry point (src/main.ts, or `nodeArgs`) on a free loopback port with the test
 * secrets and the given variables (DATABASE_URL among them), resolved once /health answers.
 */
export async function startServerProcess(env: Record<string, string>, nodeArgs: string[] = SOURCE_ENTRY): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, nodeArgs, {
    cwd: new URL('../../', import.meta.url),
    env: {
      PATH: process.env.PATH ?? '', ADMIN_TOKEN: TEST_ADMIN_TOKEN, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  while (!(await fetch(`${baseUrl}/health`).then((r) => r.ok, () => false))) {
    if (Date.now() > until || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`the server did not start: ${stderr.slice(-2_000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, baseUrl, stderr: () => stderr };
}
