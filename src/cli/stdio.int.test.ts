// A reader that stops early (`jtrace ... | head`) must not turn into an EPIPE crash.
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';

const MAIN = new URL('./main.ts', import.meta.url).pathname;

it('drops its output quietly and exits 0 when the reading end of stdout is already closed', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
  // Closed before the CLI has started: every write of the help text meets a closed pipe.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(stderr).not.toMatch(/EPIPE|Error/);
  expect(code).toBe(0);
}, 30_000);
