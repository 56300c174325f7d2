// Finds a Python 3.9+ interpreter that has pytest (Debian's /usr/bin/python3 with python3-pytest
// first: a python3 earlier on PATH, such as a pyenv shim, often lacks it) and runs it.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const PYTHON_PACKAGE = fileURLToPath(new URL('..', import.meta.url));
export const PYTHON_SOURCE = fileURLToPath(new URL('../src', import.meta.url));

function works(candidate: string, module: string | null): boolean {
  const check = `import sys; assert sys.version_info >= (3, 9)${module ? `; import ${module}` : ''}`;
  const run = spawnSync(candidate, ['-c', check], { stdio: 'ignore', timeout: 20_000 });
  return run.status === 0;
}

/** An interpreter with pytest, or null. */
export function findPythonWithPytest(): string | null {
  for (const candidate of ['/usr/bin/python3', 'python3']) if (works(candidate, 'pytest')) return candidate;
  return null;
}

/** Any Python 3.9+ (the SDK needs nothing else), or null. */
export function findPython(): string | null {
  for (const candidate of ['/usr/bin/python3', 'python3']) if (works(candidate, null)) return candidate;
  return null;
}

export interface RunResult {
  code: number | null;
  output: string;
}

/** Runs the interpreter without blocking this process's event loop (the server under test lives here). */
export function runPython(python: string, args: string[], env: Record<string, string>, cwd = PYTHON_PACKAGE, input?: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(python, args, { cwd, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(input ?? '');
  });
}
