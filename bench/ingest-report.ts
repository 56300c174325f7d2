// The report of bench/ingest.ts: the server's CPU profile summed by module, and the markdown
// `## Ingestion` section of docs/benchmarks.md.

import os from 'node:os';
import { replaceDocsSection } from './docs-section.ts';

export interface VersionFigures {
  label: string;
  version: string;
  locale: string;
  batchRates: number[];
  /** The same batch runs with the findings analyzer working in the server's process. */
  analyzerRates: number[];
  rawRates: number[];
  ratio: number;
  batchP50: number;
  loneP50: number;
  loneP99: number;
  single: Array<{ clients: number; rate: number; analyzerRate: number; failures: number }>;
  halfRate: number;
  searchP95: number;
  listP95: number;
  readFailures: number;
  failures: number;
  statements: Array<{ statement: string; callsPerBatch: number; msPerBatch: number; rowsPerCall: number }>;
  cpu: Array<{ part: string; msPerBatch: number }>;
  split: { prepareMs: number; storeMs: number; commitMs: number };
  profile: unknown;
  /** Batches of 100 new one-event journeys, 8 clients, events/s. */
  journeysShape: number;
  /** The reference of earlier runs (19 columns, primary key only, 8 connections), rows/s. */
  wideRaw: number;
}

interface ProfileNode { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Where a sample's time belongs: the innermost frame of our code or of a package decides. */
function partOf(stack: ProfileNode[]): string {
  const leaf = stack[0]!.callFrame;
  if (leaf.url === '' && (leaf.functionName === 'parse' || leaf.functionName === 'stringify')) {
    const caller = stack.find((n) => n.callFrame.url !== '')?.callFrame.url ?? '';
    return `JSON.${leaf.functionName} (${partOfUrl(caller) ?? 'node'})`;
  }
  for (const node of stack) {
    const part = partOfUrl(node.callFrame.url);
    if (part !== null) return part;
  }
  return leaf.functionName.startsWith('(') ? leaf.functionName : 'node internals';
}

function partOfUrl(url: string): string | null {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const src = url.indexOf('/src/');
  if (src !== -1) return url.slice(src + 1);
  return null;
}

/** CPU milliseconds per batch by part, largest first (samples of the profiled run). */
export function summarizeProfile(profile: unknown, batches: number): Array<{ part: string; msPerBatch: number }> {
  if (profile === null) return [];
  const p = profile as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackPart = new Map<number, string>();
  const totals = new Map<string, number>();
  p.samples.forEach((id, i) => {
    let part = stackPart.get(id);
    if (part === undefined) {
      const stack: ProfileNode[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
      part = partOf(stack);
      stackPart.set(id, part);
    }
    totals.set(part, (totals.get(part) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals].filter(([part]) => part !== '(idle)').map(([part, ms]) => ({ part, msPerBatch: ms / batches })).sort((a, b) => b.msPerBatch - a.msPerBatch);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export interface Report { loadAverage: number; loadAverageAfter: number; eventBytes: number; clients: number; rounds: number; results: VersionFigures[] }

export function renderSection(r: Report): string {
  const machine = `${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const row = (name: string, f: (v: VersionFigures) => string) => `| ${name} | ${r.results.map(f).join(' | ')} |`;
  const lines = [
    '## Ingestion',
    '',
    `Measured on ${new Date().toISOString().slice(0, 10)} with \`npm run bench:ingest\` (bench/ingest.ts). Machine: ${machine}; load average`,
    `${r.loadAverage.toFixed(1)} when the run began, ${r.loadAverageAfter.toFixed(1)} when it ended. Each PostgreSQL is a temporary cluster made by`,
    'its own initdb with default settings (fsync and synchronous commit on, shared_buffers 128 MB; the fsync-off column turns only',
    'fsync off) plus pg_stat_statements; the findings analyzer, when on, works in the server\'s process as src/main.ts runs it; the load generator is a',
    `child process on the same cores. Events are about ${r.eventBytes} bytes in the default \`redacted-payload\` capture; a batch is`,
    `25 new journeys of four steps. Batch runs (${r.clients} clients) and the raw INSERT reference (4 columns, \`id\` primary key,`,
    `one index on \`(journey_id, ts)\`, 100-row INSERTs, 4 connections) alternate ${r.rounds} times; the ratio is of their medians.`,
    '',
    `| Measure | ${r.results.map((v) => `${v.label} (${v.version}, locale ${v.locale})`).join(' | ')} |`,
    `|---|${r.results.map(() => '---|').join('')}`,
    row('Batch ingest, 8 clients, analyzer off (runs)', (v) => `${fmt(median(v.batchRates))} events/s (${v.batchRates.map(fmt).join(', ')})`),
    row('Batch ingest, 8 clients, analyzer on (runs; goal ≥ 0.9 of off)', (v) => `${fmt(median(v.analyzerRates))} events/s (${v.analyzerRates.map(fmt).join(', ')}); **${(median(v.analyzerRates) / median(v.batchRates)).toFixed(2)}** of off`),
    row('Raw INSERT reference (runs)', (v) => `${fmt(median(v.rawRates))} rows/s (${v.rawRates.map(fmt).join(', ')})`),
    row('**Ratio** (goal ≥ 0.35)', (v) => `**${v.ratio.toFixed(2)}**`),
    row('Batches of 100 new one-event journeys, 8 clients (ratio)', (v) => `${fmt(v.journeysShape)} events/s (${(v.journeysShape / median(v.rawRates)).toFixed(2)})`),
    row('Earlier reference: 19 columns, primary key only, 8 connections (batch ratio to it)', (v) => `${fmt(v.wideRaw)} rows/s (${(median(v.batchRates) / v.wideRaw).toFixed(2)})`),
    row('Batch p50 under the 8-client load', (v) => `${v.batchP50.toFixed(1)} ms`),
    row('Lone 100-event batch (goal p50 ≤ 20 ms)', (v) => `p50 ${v.loneP50.toFixed(1)} ms, p99 ${v.loneP99.toFixed(1)} ms`),
    ...[0, 1].map((i) => row(`Single events, ${r.results[0]?.single[i]?.clients} clients, analyzer off / on (goal ≥ ${i === 0 ? '0.2' : '0.5'} of batch)`, (v) =>
      `${fmt(v.single[i]!.rate)} events/s (**${(v.single[i]!.rate / median(v.batchRates)).toFixed(2)}** of batch) / ${fmt(v.single[i]!.analyzerRate)} events/s (**${(v.single[i]!.analyzerRate / median(v.analyzerRates)).toFixed(2)}** of batch with the analyzer); ${v.single[i]!.failures} failed`)),
    row('Search p95 at half the batch rate (goal ≤ 5 ms)', (v) => `${v.searchP95.toFixed(1)} ms (ingest at ${fmt(v.halfRate)} events/s)`),
    row('Journey list p95 at half the batch rate (goal ≤ 30 ms)', (v) => `${v.listP95.toFixed(1)} ms`),
    row('One batch alone, in the server process: prepare / statements / COMMIT', (v) => `${v.split.prepareMs.toFixed(1)} / ${v.split.storeMs.toFixed(1)} / ${v.split.commitMs.toFixed(1)} ms`),
    '',
  ];
  for (const v of r.results) {
    lines.push(`Database time per batch under the 8-client load, ${v.label} (pg_stat_statements; COMMIT's WAL flush is not in it):`, '',
      '| Statement | Calls per batch | ms per batch | Rows per call |', '|---|---|---|---|',
      ...v.statements.map((s) => `| \`${s.statement.replace(/\|/g, '\\|')}\` | ${s.callsPerBatch.toFixed(2)} | ${s.msPerBatch.toFixed(2)} | ${s.rowsPerCall.toFixed(0)} |`), '');
    const total = v.cpu.reduce((n, c) => n + c.msPerBatch, 0);
    lines.push(`Server CPU per batch under that load, ${v.label} (inspector profile, ${total.toFixed(1)} ms in all; the largest parts):`, '',
      '| Part | ms per batch |', '|---|---|', ...v.cpu.slice(0, 14).map((c) => `| ${c.part} | ${c.msPerBatch.toFixed(2)} |`), '');
  }
  return lines.join('\n');
}

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function writeIngestSection(section: string): void {
  replaceDocsSection(new URL('../docs/benchmarks.md', import.meta.url), '## Ingestion', section);
}
