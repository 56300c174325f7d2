// Dependency direction (docs/architecture.md): src/protocol is the kernel the SDK imports
// unchanged, so it imports nothing outside itself, no Node built-in and no package; the other
// kernel folders import no capability; a capability imports another only through its public
// modules, named below; and the folders form a graph without loops.
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
  // Their routes live in project-settings, above auth, ingest and query, which read projects.
  projects: ['projects-sql.ts', 'environments-sql.ts', 'settings.ts', 'settings-input.ts'],
  // activity.ts: the journey chart of the web interface; journey-payloads.ts: forensics' reads.
  query: ['details.ts', 'activity.ts', 'journey-payloads.ts', 'journey-read.ts', 'common-trigrams.ts'],
  deletion: ['erasure.ts', 'erasure-input.ts', 'journey-delete.ts', 'range-delete.ts', 'range-dates.ts', 'retention-sweep.ts', 'limits.ts'],
  // url-policy.ts and sender.ts: alert webhooks follow the replay URL rules and go through its pinned sender.
  replay: ['destinations.ts', 'replays.ts', 'replay-input.ts', 'url-policy.ts', 'sender.ts'],
  rotation: ['reencrypt.ts', 'key-usage.ts', 'startup-check.ts', 'key-mismatch.ts'],
  // checks.ts: the instance page runs the checks that apply to a running server.
  doctor: ['doctor.ts', 'checks.ts'],
  // What a command runs against: the CLI's commands and doctor's run take it.
  'cli-context': ['context.ts'],
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
  // Problems: what the summary and the alert rules leave out; the routes, statuses and list for the CLI.
  problems: ['silenced.ts', 'regressions.ts', 'routes.ts', 'problem-status.ts', 'problems-sql.ts', 'problem-view.ts', 'list-query.ts'],
  'problem-replay': ['batches.ts', 'runner.ts', 'limits.ts', 'demo-destination.ts'],
  // The demo data set the CLI's demo command sends.
  web: ['demo-journeys.ts'],
  // The worker's loose search token backfill.
  'loose-backfill': ['backfill.ts'],
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

/** Folder → the folders it imports, each with one import that makes the edge (for the message). */
export type FolderGraph = Map<string, Map<string, string>>;

/** The import graph between the top folders of src, production files only. */
function folderGraph(): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const file of productionFiles()) {
    const from = folderOf(file);
    if (from === null) continue;
    for (const specifier of importsOf(readFileSync(join(SRC, file), 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = relative(SRC, resolve(SRC, dirname(file), specifier));
      const to = folderOf(target);
      if (to === null || to === from || target.startsWith('..')) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, `${file} imports ${target}`);
      graph.set(from, edges);
    }
  }
  return graph;
}

/**
 * One loop of the graph as the path of its folders, first folder repeated at the end
 * (['a', 'b', 'a']), or null when there is none. Depth-first search: an edge back to a folder
 * still on the path closes a loop.
 */
export function findCycle(graph: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[] | null {
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (node: string): string[] | null => {
    path.push(node);
    onPath.add(node);
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (onPath.has(next)) return [...path.slice(path.indexOf(next)), next];
      if (done.has(next)) continue;
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    onPath.delete(node);
    done.add(node);
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    if (done.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

/** A loop written out with the import that makes each of its edges. */
function describeCycle(graph: FolderGraph, cycle: string[]): string {
  return cycle
    .slice(0, -1)
    .map((from, i) => `${from} → ${cycle[i + 1]!} (${graph.get(from)!.get(cycle[i + 1]!)!})`)
    .join('\n');
}

describe('folder graph', () => {
  it('has no loop between folders (type-only imports count)', () => {
    const graph = folderGraph();
    const cycle = findCycle(graph);
    expect(cycle === null ? 'no loop' : describeCycle(graph, cycle)).toBe('no loop');
  });
});

describe('findCycle', () => {
  const graphOf = (edges: Record<string, string[]>) => new Map(Object.entries(edges).map(([from, to]) => [from, new Map(to.map((t) => [t, '']))]));

  it('finds a loop planted in a graph, through any number of folders', () => {
    expect(findCycle(graphOf({ cli: ['doctor', 'db'], doctor: ['cli'], db: [] }))).toEqual(['cli', 'doctor', 'cli']);
    const planted = { app: ['auth', 'query'], auth: ['projects', 'db'], projects: ['query'], query: ['auth'], db: [] };
    expect(findCycle(graphOf(planted))).toEqual(['auth', 'projects', 'query', 'auth']);
  });

  it('accepts a graph without a loop, shared folders below several included', () => {
    expect(findCycle(graphOf({ web: ['query', 'auth'], query: ['auth', 'projects'], auth: ['projects'], projects: ['db'], db: [] }))).toBeNull();
    expect(findCycle(new Map())).toBeNull();
  });
});

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
