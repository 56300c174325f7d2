// Dependency direction (docs/architecture.md): src/protocol is the kernel the SDK imports
// unchanged, so it imports nothing outside itself, no Node built-in and no package; the other
// kernel folders import no capability; a capability imports another only through its public
// modules, named below.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Every .ts file under a folder of src, tests excluded, as paths relative to src. */
function sourceFiles(folder: string): string[] {
  const entries = readdirSync(join(SRC, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => relative(SRC, join(e.parentPath, e.name)));
}

/** The module specifiers a file imports or re-exports, type-only and side-effect ones included. */
export function importsOf(text: string): string[] {
  const patterns = [
    /^\s*import\s[^'";]*?['"]([^'"]+)['"]/gm,
    /^\s*export\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1]!));
}

/** Folders every capability may use; they never import a capability. */
const KERNEL = ['protocol', 'http', 'db', 'crypto', 'audit', 'metrics', 'config', 'runtime'];

/**
 * The public modules of each capability: what another capability or an entry (cli, app.ts,
 * main.ts) may import. Everything else in a capability folder (its SQL above all) is internal.
 */
const PUBLIC_MODULES: Record<string, readonly string[]> = {
  auth: ['credentials.ts', 'api-key-service.ts', 'user-sessions.ts', 'policy.ts', 'api-key-routes.ts'],
  // Projects have no service layer: their reads and writes are the functions of these files.
  // settings.ts: changes with their history row; settings-input.ts: what a setting may be.
  projects: ['projects-sql.ts', 'environments-sql.ts', 'visibility.ts', 'settings.ts', 'settings-input.ts'],
  // activity.ts: the journey chart of the web interface; journey-payloads.ts: forensics' reads.
  query: ['details.ts', 'activity.ts', 'journey-payloads.ts', 'journey-read.ts', 'common-trigrams.ts'],
  deletion: ['erasure.ts', 'erasure-input.ts', 'journey-delete.ts', 'range-delete.ts', 'range-dates.ts', 'retention-sweep.ts', 'limits.ts'],
  // url-policy.ts and sender.ts: alert webhooks follow the replay URL rules and go through its pinned sender.
  replay: ['destinations.ts', 'replays.ts', 'replay-input.ts', 'url-policy.ts', 'sender.ts'],
  rotation: ['reencrypt.ts', 'key-usage.ts', 'startup-check.ts', 'key-mismatch.ts'],
  // checks.ts: the instance page runs the checks that apply to a running server.
  doctor: ['doctor.ts', 'checks.ts'],
  // The CLI's context type is what doctor's checks run against.
  cli: ['context.ts', 'run.ts'],
  // ingest-service.ts: ingestEvents, the pipeline every ingestion route feeds (OTLP included).
  // capture-preview.ts: the settings page's preview runs ingestion's own preparation.
  ingest: ['ingest-service.ts', 'received-clock.ts', 'statistics-warmup.ts', 'capture-preview.ts'],
  health: ['routes.ts', 'build-info.ts'],
  // The read-time diff the interface's event diff shows; the changes walk and its event limit,
  // from which the findings analyzer takes its lost and changed verdicts.
  forensics: ['read-diff.ts', 'journey-changes.ts', 'limits.ts'],
  // Expectations for the CLI; the analyzer and its test kit for the server entry.
  findings: ['expectations.ts', 'analyzer.ts'],
  // Alert rules and their delivery log for the CLI.
  alerts: ['rules.ts'],
  'problem-replay': ['batches.ts', 'runner.ts', 'limits.ts', 'demo-destination.ts'],
  // The demo data set the CLI's demo command sends.
  web: ['demo-journeys.ts'],
  // Accounts and memberships: the interface's sign-in and session answer, the CLI's user commands.
  teams: ['accounts.ts', 'tokens.ts', 'sign-in.ts', 'describe.ts', 'routes.ts', 'users-sql.ts', 'oidc.ts', 'invitation-routes.ts'],
};

/** Files of src outside tests and test helpers, relative to src. */
function productionFiles(): string[] {
  return readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.startsWith('test-'))
    .map((e) => relative(SRC, join(e.parentPath, e.name)));
}

/** The top folder of a path relative to src, or null for a file directly in src. */
function folderOf(path: string): string | null {
  return path.includes('/') ? path.slice(0, path.indexOf('/')) : null;
}

/** Imports that break the direction: kernel → capability, capability → another's internals. */
function directionViolations(): string[] {
  const violations: string[] = [];
  for (const file of productionFiles()) {
    const from = folderOf(file);
    for (const specifier of importsOf(readFileSync(join(SRC, file), 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = relative(SRC, resolve(SRC, dirname(file), specifier));
      const to = folderOf(target);
      if (to === null || to === from || KERNEL.includes(to) || target.startsWith('..')) continue;
      if (from !== null && KERNEL.includes(from)) violations.push(`${file} (kernel) imports capability file ${target}`);
      else if (from !== null && !PUBLIC_MODULES[to]?.includes(target.slice(to.length + 1))) {
        violations.push(`${file} imports ${target}, internal to ${to}`);
      }
    }
  }
  return violations;
}

describe('dependency direction', () => {
  it('no kernel folder imports a capability, no capability imports internals of another', () => {
    expect(directionViolations()).toEqual([]);
  });
});

describe('importsOf', () => {
  it('finds every import form', () => {
    const text = [
      "import a from './a.ts';",
      "import type { B } from '../b.ts';",
      "import {\n  c,\n  d,\n} from 'c';",
      "import './side-effect.ts';",
      "export { e } from './e.ts';",
      "export const f = 'not-an-import';",
      "const g = await import('./g.ts');",
    ].join('\n');
    expect(importsOf(text).sort()).toEqual(['../b.ts', './a.ts', './e.ts', './g.ts', './side-effect.ts', 'c']);
  });
});

describe('src/protocol', () => {
  it('imports only its own files', () => {
    const outside: string[] = [];
    for (const file of sourceFiles('protocol')) {
      for (const specifier of importsOf(readFileSync(join(SRC, file), 'utf8'))) {
        const target = specifier.startsWith('.') ? relative(SRC, resolve(SRC, dirname(file), specifier)) : specifier;
        if (!target.startsWith('protocol/')) outside.push(`${file} imports ${specifier}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
