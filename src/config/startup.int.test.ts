import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/** Starts the real entry point with only the given variables and collects what it prints. */
function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

describe('a start with a bad configuration', () => {
  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'postgres://u:p@127.0.0.1:1/x', ENCRYPTION_KEY: 'k'.repeat(40) }, 'ADMIN_TOKEN'],
    [{ ADMIN_TOKEN: 'too-short' }, 'ADMIN_TOKEN'],
    [{ ENCRYPTION_KEY: 'weak-key-0123456789' }, 'ENCRYPTION_KEY'],
    [{ ENCRYPTION_KEY: '6b7d1d7f7a15ed26'.repeat(4) }, 'ENCRYPTION_KEY'],
    [{ ADMIN_TOKEN: 'x'.repeat(32) }, 'ADMIN_TOKEN'],
    [{ MAX_EVENT_PAYLOAD_BYTES: '10' }, 'MAX_EVENT_PAYLOAD_BYTES'],
    [{ ALLOW_FULL_PAYLOAD_CAPTURE: 'yes' }, 'ALLOW_FULL_PAYLOAD_CAPTURE'],
    [{ ENCRYPTION_KEY: 'same-key-0123456789abcdef', ENCRYPTION_KEY_PREVIOUS: 'same-key-0123456789abcdef' }, 'ENCRYPTION_KEY_PREVIOUS'],
  ])('prints one line naming the variable and exits non-zero (%o)', async (env, variable) => {
    const result = await start(env);
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
    expect(result.stdout).toBe('');
    // Secret values are never echoed back.
    for (const value of Object.values(env)) if (value.length >= 9) expect(result.stderr).not.toContain(value);
  });
});
