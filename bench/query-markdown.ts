// The `## Query` section of docs/benchmarks.md, written from one run's figures.

import type { Shape } from './query-data.ts';
import type { Timing } from './query-report.ts';

export interface Result {
  name: string;
  /** p95 target in milliseconds. */
  target: number;
  timing: Timing;
  /** Measured requests that returned an empty page. */
  empty: number;
  scans: string[];
  /** Database execution time of the request's read statements (EXPLAIN ANALYZE), ms. */
  databaseMs: number;
}

export interface RunInfo {
  date: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  postgres: string;
  counts: { journeys: number; events: number; aliases: number; tokens: number };
  loadTime: string;
  requests: number;
  warmup: number;
  /** 1-minute load average when the measurements started and ended (other work on the machine shows here). */
  loadAverage: [number, number];
  settings: Record<string, string>;
  /** The section's `## ` heading: the default run and the 10-million run keep a section each. */
  heading: string;
  shape: Shape;
}

const ms = (value: number) => value.toFixed(2);
const n = (value: number) => value.toLocaleString('en');

export function renderSection(info: RunInfo, results: Result[]): string {
  const rows = results.map((r) => {
    const verdict = r.timing.p95 <= r.target ? 'met' : 'MISSED';
    return `| ${r.name} | ${ms(r.timing.p50)} | ${ms(r.timing.p95)} | ${ms(r.timing.p99)} | ≤ ${r.target} | ${verdict} | ${n(r.empty)} |`;
  });
  const plans = results.map((r) => `- **${r.name}** (${ms(r.databaseMs)} ms in the database): ${r.scans.join('; ')}`);
  const missed = results.filter((r) => r.timing.p95 > r.target).map((r) => r.name);
  const settings = Object.entries(info.settings).map(([k, v]) => `${k}=${v}`).join(', ');
  const aliases = info.shape === 'full' ? 'one displayable e-mail per journey, a masked phone on every other one' : 'one displayable e-mail per journey';
  const events =
    info.shape === 'full'
      ? 'each with a trace and a span id, runtime and deployment metadata, an input payload on the first and an output on every later one'
      : 'small ones (the compact shape: a trace id and no span id, no metadata, payloads of one or two fields)';
  return [
    info.heading,
    '',
    `Run on ${info.date} with \`npm run bench:query\` (bench/query.ts). Machine: ${info.cpus} × ${info.cpuModel}, ` +
      `${info.memoryGiB} GiB memory; Node ${info.node}; PostgreSQL ${info.postgres} (embedded, started by the benchmark, ` +
      `fsync off; ${settings}; everything else default).`,
    '',
    `Data: ${n(info.counts.journeys)} journeys over 30 days in 3 environments (60/30/10 %), ${n(info.counts.events)} events (${events}), ` +
      `${n(info.counts.aliases)} aliases (${aliases}), ` +
      `${n(info.counts.tokens)} search tokens (entity id, journey id, aliases, correlation id; trace and span ids as token columns of \`event_ids\`; real HMAC tokens). ` +
      `Statuses 70 % completed, 20 % active, 10 % failed; 8 services; 5 entity types; 80 % of journeys have a label ` +
      `holding one of 50 surnames. Generated set-based in ${info.loadTime} (indexes rebuilt after the load, then VACUUM ANALYZE).`,
    '',
    `Each row: ${info.requests} sequential requests through \`app.inject\` (after ${info.warmup} warm-up requests) with the admin token ` +
      'and `x-service-project-id` (one row with an API key), so times include routing, the credential check, project lookup, every statement, ' +
      'decryption of entity ids and JSON serialization. Times in milliseconds. The 1-minute load average was ' +
      `${info.loadAverage[0].toFixed(1)} when the measurements started and ${info.loadAverage[1].toFixed(1)} when they ended ` +
      `(${info.cpus} cores; anything above ${info.cpus} means other work competed for them).`,
    '',
    '| Scenario | p50 | p95 | p99 | p95 target | | empty pages |',
    '|---|---:|---:|---:|---:|---|---:|',
    ...rows,
    '',
    missed.length === 0
      ? 'Every scenario met its p95 target on this machine.'
      : `Missed targets: ${missed.join(', ')}. See the notes below.`,
    '',
    '### Index use (EXPLAIN ANALYZE of the statements one request runs)',
    '',
    ...plans,
    '',
    '### Notes',
    '',
    '- Targets: search p95 ≤ 5 ms, list p95 ≤ 30 ms, list with q p95 ≤ 100 ms, timeline page and event p95 ≤ 10 ms.',
    '- The machine was shared with other work during the run (see the load average above), so the tails (p99) are ' +
      'noisier than the database times in the plan list suggest.',
    '- The list with q runs one branch per place q can match (labels, displayable alias values), each with its own ' +
      'LIMIT, so the planner chooses per branch between walking the keyset index and checking each row (a q found on ' +
      'many rows: "q=order", "q=<surname>", a word in about 1.6 % of labels) and the trigram index (a rare q: ' +
      '"q=<one alias>", the e-mail of one journey). Its choice rests on the statistics of the trigram index ' +
      'expressions (non-partial indexes, statistics target 1000, migration 0002).',
    '- A q of two characters holds no trigram: it is answered by the GIN index of each label\'s and alias value\'s ' +
      'two-character substrings (migration 0018), one probe for a rare pair ("q=zq"); a common pair is found by walking ' +
      'the keyset index, as for a common word. A q of three characters or more is served by the trigram indexes.',
    '- Events are stored in one partition per day of received_at (migration 0017): the timeline page reads the ' +
      'journey\'s first and last arrival from event_ids and probes the timeline index of those days only (the others show ' +
      'in the plan, never executed); one event probes event_ids and then its own day only.',
    '- Not measured here: a rare entity type (no index of its own; the list walks the keyset index of the other ' +
      'filters until the page is full, so a type found on few journeys of the window reads most of the window) and a ' +
      'rare service (the GIN index on services or the same walk, whichever the planner estimates cheaper).',
    '- Trace and span ids are searched through token columns of `event_ids` (partial indexes, migration 0022); ' +
      'message ids, which the benchmark leaves out, get search tokens on ingestion too: more rows of the same primary key, ' +
      'so a search stays one probe of a slightly deeper b-tree.',
  ].join('\n');
}
