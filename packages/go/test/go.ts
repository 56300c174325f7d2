// Finds Debian's Go (or any `go` on PATH) and runs it with a cache and module settings that work
// as root in a fresh clone with no network but the package registries: the module needs nothing
// outside the standard library, so nothing is fetched (GOPROXY=off, GOTOOLCHAIN=local).
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GO_PACKAGE = fileURLToPath(new URL('..', import.meta.url));

/** A `go` binary that answers `go version`, or null. */
export function findGo(): string | null {
  for (const candidate of ['go', '/usr/bin/go', '/usr/lib/go/bin/go']) {
    const run = spawnSync(candidate, ['version'], { stdio: 'ignore', timeout: 20_000 });
    if (run.status === 0) return candidate;
  }
  return null;
}

/** The environment every Go run gets: caches under the temp folder when HOME gives none. */
export function goEnv(extra: Record<string, string> = {}): Record<string, string> {
  const base = join(tmpdir(), 'jtrace-go');
  return {
    GOCACHE: process.env.GOCACHE || join(base, 'cache'),
    GOPATH: process.env.GOPATH || join(base, 'path'),
    GOFLAGS: '',
    GOPROXY: 'off',
    GOTOOLCHAIN: 'local',
    GOTELEMETRY: 'off',
    GO111MODULE: 'on',
    ...extra,
  };
}

/** Whether the race detector can build here (it needs cgo and a C compiler). */
export function raceWorks(go: string): boolean {
  const cc = spawnSync('gcc', ['--version'], { stdio: 'ignore', timeout: 20_000 });
  if (cc.status !== 0) return false;
  const cgo = spawnSync(go, ['env', 'CGO_ENABLED'], { encoding: 'utf8', env: { ...process.env, ...goEnv() }, timeout: 20_000 });
  return cgo.stdout.trim() === '1';
}

export interface RunResult {
  code: number | null;
  output: string;
}

/** Runs go without blocking this process's event loop (the server under test lives here). */
export function runGo(go: string, args: string[], env: Record<string, string>, cwd = GO_PACKAGE): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(go, args, { cwd, env: { ...process.env, ...goEnv(env) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}
