// Reporting helpers of the query benchmark: percentiles, the plan of every statement a request
// runs (captured from the pool, then EXPLAIN ANALYZE'd with the same parameters), and the
// `## Query` section of docs/benchmarks.md, which is replaced without touching other sections.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Pool } from '../src/db/pool.ts';

export interface Timing {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of durations in milliseconds. */
export function percentiles(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
  return { p50: rank(50), p95: rank(95), p99: rank(99), max: sorted.at(-1) ?? NaN };
}

export interface Statement {
  text: string;
  values: unknown[];
}

/** Records the statements run through pool.query while `on` is true. */
export function recordStatements(pool: Pool): { on: boolean; statements: Statement[] } {
  const recorder = { on: false, statements: [] as Statement[] };
  const original = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const wrapped = (...args: unknown[]) => {
    if (recorder.on && typeof args[0] === 'string') {
      recorder.statements.push({ text: args[0], values: Array.isArray(args[1]) ? args[1] : [] });
    }
    return original(...args);
  };
  Object.assign(pool, { query: wrapped });
  return recorder;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** The scans a plan ran; those it never executed (days a timeline skipped at run time) are only counted. */
function scans(node: PlanNode, into: { ran: string[]; neverExecuted: number }): typeof into {
  const index = node['Index Name'] ? ` using ${node['Index Name']}` : '';
  const scan = node['Relation Name'] !== undefined ? `${node['Node Type']}${index} on ${node['Relation Name']}` : index ? `${node['Node Type']}${index}` : null;
  // A bitmap index scan names its index but not its table; its parent heap scan names the table.
  if (scan !== null && node['Actual Loops'] === 0) into.neverExecuted++;
  else if (scan !== null) into.ran.push(scan);
  for (const child of node.Plans ?? []) scans(child, into);
  return into;
}

const READ_TABLES = /\b(journeys|events|search_tokens|journey_aliases)\b/;

/** The scans of every read statement (EXPLAIN ANALYZE) and the database time they took. */
export async function explainStatements(pool: Pool, statements: Statement[]): Promise<{ scans: string[]; executionMs: number }> {
  const found: string[] = [];
  let executionMs = 0;
  let skipped = 0;
  for (const statement of statements) {
    if (!/^\s*(SELECT|WITH)\b/i.test(statement.text) || !READ_TABLES.test(statement.text)) continue;
    const result = await pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }> }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
      statement.values,
    );
    const plan = result.rows[0]!['QUERY PLAN'][0]!;
    executionMs += plan['Execution Time'];
    const { ran, neverExecuted } = scans(plan.Plan, { ran: [], neverExecuted: 0 });
    for (const scan of ran) if (!found.includes(scan)) found.push(scan);
    skipped += neverExecuted;
  }
  if (skipped > 0) found.push(`${skipped} more scans in the plan, never executed`);
  return { scans: found, executionMs };
}

/** Replaces (or adds) the `## Query` section of docs/benchmarks.md; other sections stay as they are. */
/** Replaces (or adds) the section under `heading` (a `## ` line) of a Markdown file; other sections stay. */
export function writeSection(file: URL, heading: string, section: string): void {
  const body = section.trimEnd() + '\n';
  if (!existsSync(file)) {
    writeFileSync(file, `# Benchmarks\n\n${body}`);
    return;
  }
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start === -1) {
    writeFileSync(file, `${text.trimEnd()}\n\n${body}`);
    return;
  }
  let end = lines.findIndex((line, index) => index > start && /^## /.test(line));
  if (end === -1) end = lines.length;
  const before = lines.slice(0, start).join('\n').trimEnd();
  const after = lines.slice(end).join('\n').trim();
  writeFileSync(file, `${before}\n\n${body}${after ? `\n${after}\n` : ''}`);
}
