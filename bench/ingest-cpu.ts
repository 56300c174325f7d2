// Node CPU per 100-event batch, by stage (npm run bench:ingest-cpu). No server and no database:
// each stage of ingestion that runs in Node (body check and parse, the per-event preparation,
// the store's planning and parameter building) is run over bench/ingest.ts's batch shape and
// its CPU time (process.cpuUsage: this thread and V8's helper threads) taken per batch.
//
// The store's statements go to a recorder that answers as an empty database would (no journey,
// event or alias stored yet), so its planning, tokens, encryption and parameter JSON are
// measured without the driver or PostgreSQL. The driver's own share (about 6 ms under load)
// and the database's are bench:ingest's business.
//
// `--baseline <commit>` also loads the ingestion code of that commit (extracted with git archive
// under node_modules/.cache) and alternates old and new batch by batch in this one process, so
// that both sides see the same machine load. Prints the figures and replaces the
// `## Ingestion: Node CPU per batch` section of docs/benchmarks.md.
// `--at <commit>` measures that commit instead of the working tree (one change: `--baseline
// <commit>~ --at <commit>`). BENCH_CPU_BATCHES sets the batches per side (default 400).

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createKeyring, type Keyring } from '../src/crypto/keyring.ts';
import { replaceDocsSection } from './docs-section.ts';
import { makeBatch } from './ingest-load.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BATCHES = Number(process.env.BENCH_CPU_BATCHES ?? 400);
const WARMUP = 60;
const HEADING = '## Ingestion: Node CPU per batch';

/** The functions a stage calls, as each tree exports them (a tree may lack a later one). */
interface Pipeline {
  parseJsonBodyWithBudget(body: Buffer): { value: unknown };
  checkStructuralLimits(envelope: unknown, max: number): unknown;
  /** Since the limit walk also tells whether the text is storable (absent before). */
  inspectEnvelope?(envelope: unknown, max: number): { refusal: unknown; storableText: boolean };
  findUnstorable(value: unknown, basePath?: string): string | null;
  validateEnvelope(envelope: unknown, options?: { sharePayloads?: boolean }): { ok: boolean; event?: any };
  canonicalEventJson(event: any): string;
  contentHash(keyring: Keyring, canonical: string): unknown;
  applyCapture(event: any, settings: unknown, full: boolean): any;
  computePayloadDiff(a: unknown, b: unknown): unknown;
  findUnstorableEventValue(event: any, stored: unknown): string | null;
  prepareEvent(envelope: unknown, ctx: unknown): { ok: boolean; prepared?: any; refusal?: { code: string } };
  storeEvents(db: unknown, keyring: Keyring, scope: unknown, inputs: unknown[]): Promise<unknown[]>;
}

async function loadPipeline(src: string): Promise<Pipeline> {
  const load = (file: string) => import(pathToFileURL(path.join(src, file)).href);
  const modules = await Promise.all([
    'http/body-parsers.ts', 'protocol/structural-limits.ts', 'protocol/envelope.ts', 'protocol/canonical-json.ts',
    'crypto/content-hash.ts', 'ingest/capture/capture.ts', 'protocol/payload-diff.ts', 'protocol/storability.ts',
    'ingest/prepare.ts', 'ingest/store.ts',
  ].map(load));
  return Object.assign({}, ...modules) as Pipeline;
}

/** The source tree of a commit, extracted once (node_modules above it resolves its imports). */
function extractBaseline(commit: string): string {
  const sha = execFileSync('git', ['rev-parse', '--short', commit], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = path.join(ROOT, 'node_modules', '.cache', 'jtrace-bench-baseline', sha);
  if (!existsSync(path.join(dir, 'src'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${sha} src | tar -x -C "${dir}"`], { cwd: ROOT });
    // Below node_modules no package.json of ours applies: without these the old code would be
    // compiled as CommonJS for another target, and measure differently for that alone.
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    copyFileSync(path.join(ROOT, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  }
  return path.join(dir, 'src');
}

/** Answers as an empty database: nothing stored yet, every new journey inserted. */
function recordingDatabase(newJourneys: () => number) {
  return {
    async query(config: string | { text: string }) {
      const text = typeof config === 'string' ? config : config.text;
      if (text.includes('INSERT INTO journeys')) return { rows: [{ journeys: newJourneys(), aliases: [] }], rowCount: 1 };
      return { rows: [], rowCount: 0 };
    },
  };
}

const STAGES = [
  'JSON body check and parse', 'structural limits', 'validation', 'canonical JSON', 'content hash', 'capture (redaction)',
  'payload diff', 'storability', 'store planning (summaries, tokens, encryption, parameter JSON)',
] as const;
type Stage = (typeof STAGES)[number];

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** One batch through every stage, each timed apart; the stages feed each other as ingestion does. */
async function runStages(p: Pipeline, keyring: Keyring, body: Buffer, journeys: number, out: Map<Stage, number[]>) {
  const ctx = {
    keyring, environmentName: 'production', allowFullPayloadCapture: false, maxEventPayloadBytes: 1_048_576,
    capture: { captureMode: 'redacted-payload', redactionPaths: [], captureAllowlist: [] },
  };
  const times: Partial<Record<Stage, number>> = {};
  let t = cpuNow();
  const lap = (stage: Stage) => {
    const now = cpuNow();
    times[stage] = now - t;
    t = now;
  };
  const envelopes = (p.parseJsonBodyWithBudget(body).value as { events: unknown[] }).events;
  lap('JSON body check and parse');
  const storable = envelopes.map((e) => {
    if (p.inspectEnvelope === undefined) {
      if (p.checkStructuralLimits(e, ctx.maxEventPayloadBytes) !== null) throw new Error('refused');
      return false;
    }
    const inspection = p.inspectEnvelope(e, ctx.maxEventPayloadBytes);
    if (inspection.refusal !== null) throw new Error('refused');
    return inspection.storableText;
  });
  lap('structural limits');
  const events = envelopes.map((e) => p.validateEnvelope(e, { sharePayloads: true }).event); // as prepareEvent asks
  lap('validation');
  const canonicals = events.map((e) => p.canonicalEventJson(e));
  lap('canonical JSON');
  for (const c of canonicals) p.contentHash(keyring, c);
  lap('content hash');
  const captures = events.map((e) => p.applyCapture(e, ctx.capture, false));
  lap('capture (redaction)');
  for (const c of captures) if (c.hasInput && c.hasOutput) p.computePayloadDiff(c.inputPayload, c.outputPayload);
  lap('payload diff');
  events.forEach((e, i) => {
    const c = captures[i];
    // Storable text leaves only the masked error to check, as prepareEvent does.
    if (storable[i]) return c.error === null ? null : p.findUnstorable(c.error, 'event.error');
    return p.findUnstorableEventValue(e, {
      input: c.inputPayload, output: c.outputPayload, error: c.error, runtime: c.runtimeMetadata,
      deployment: c.deploymentMetadata, metadata: c.customMetadata,
    });
  });
  lap('storability');
  // The store gets what prepareEvent makes (its own walks are timed above), prepared untimed.
  const inputs = envelopes.map((e) => ({ prepared: p.prepareEvent(e, ctx).prepared, receivedAtUs: Date.now() * 1000 }));
  t = cpuNow();
  await p.storeEvents(recordingDatabase(() => journeys), keyring, { projectId: '00000000-0000-4000-8000-000000000001', environmentId: '00000000-0000-4000-8000-000000000002' }, inputs);
  lap('store planning (summaries, tokens, encryption, parameter JSON)');
  for (const stage of STAGES) out.get(stage)!.push(times[stage]!);
}

/** The request's whole Node path as ingestion runs it (parse, prepareEvent, storeEvents), timed as one. */
async function runWhole(p: Pipeline, keyring: Keyring, body: Buffer, journeys: number): Promise<number> {
  const ctx = {
    keyring, environmentName: 'production', allowFullPayloadCapture: false, maxEventPayloadBytes: 1_048_576,
    capture: { captureMode: 'redacted-payload', redactionPaths: [], captureAllowlist: [] },
  };
  const t = cpuNow();
  const envelopes = (p.parseJsonBodyWithBudget(body).value as { events: unknown[] }).events;
  const inputs = envelopes.map((e) => {
    const r = p.prepareEvent(e, ctx);
    if (!r.ok) throw new Error(`benchmark event refused: ${r.refusal!.code}`);
    return { prepared: r.prepared, receivedAtUs: Date.now() * 1000 };
  });
  await p.storeEvents(recordingDatabase(() => journeys), keyring, { projectId: '00000000-0000-4000-8000-000000000001', environmentId: '00000000-0000-4000-8000-000000000002' }, inputs);
  return cpuNow() - t;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const ms = (n: number) => n.toFixed(2);

interface Side { label: string; pipeline: Pipeline; stages: Map<Stage, number[]>; whole: number[] }

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const baseline = option('--baseline');
  const at = option('--at');
  const keyring = createKeyring({ current: 'bench-ingest-cpu-key-0123456789abcdef' });
  const sides: Side[] = [];
  const side = async (label: string, src: string) =>
    sides.push({ label, pipeline: await loadPipeline(src), stages: new Map(STAGES.map((s) => [s, []])), whole: [] });
  if (baseline !== undefined) await side(`before (${baseline})`, extractBaseline(baseline));
  await side(at === undefined ? 'now' : `after (${at})`, at === undefined ? path.join(ROOT, 'src') : extractBaseline(at));

  const loadBefore = os.loadavg()[0]!;
  const bodies = Array.from({ length: 16 }, (_, i) => Buffer.from(JSON.stringify({ events: makeBatch(`cpu${i}`) })));
  const eventBytes = Math.round(bodies[0]!.length / 100);
  for (let i = 0; i < WARMUP + BATCHES; i++) {
    // Old and new alternate, and which goes first alternates too.
    const order = i % 2 === 0 ? sides : [...sides].reverse();
    for (const s of order) {
      const body = bodies[i % bodies.length]!;
      const scratch = i < WARMUP ? new Map(STAGES.map((st) => [st, [] as number[]])) : s.stages;
      await runStages(s.pipeline, keyring, body, 25, scratch);
      const whole = await runWhole(s.pipeline, keyring, body, 25);
      if (i >= WARMUP) s.whole.push(whole);
    }
  }
  const loadAfter = os.loadavg()[0]!;

  const header = `| Stage | ${sides.map((s) => `${s.label}, ms`).join(' | ')} |${sides.length > 1 ? ' Change |' : ''}`;
  const rule = `|---|${sides.map(() => '---|').join('')}${sides.length > 1 ? '---|' : ''}`;
  const row = (name: string, values: number[]) => {
    const change = values.length > 1 ? ` ${(((values[1]! - values[0]!) / values[0]!) * 100).toFixed(0)} % |` : '';
    return `| ${name} | ${values.map(ms).join(' | ')} |${change}`;
  };
  const lines = [
    HEADING,
    '',
    `Measured on ${new Date().toISOString().slice(0, 10)} with \`npm run bench:ingest-cpu${baseline ? ` -- --baseline ${baseline}${at ? ` --at ${at}` : ''}` : ''}\` (bench/ingest-cpu.ts): Node ${process.version},`,
    `${os.availableParallelism()} cores, load average ${loadBefore.toFixed(1)} when it began and ${loadAfter.toFixed(1)} when it ended. CPU time (process.cpuUsage) per`,
    `100-event batch of bench:ingest's shape (25 new journeys of four steps, about ${eventBytes} bytes an event,`,
    '`redacted-payload` capture), median of ' + `${BATCHES} batches${sides.length > 1 ? ' per side, old and new alternating batch by batch in one process' : ''}.`,
    'The store runs against a recorder that answers as an empty database, so its row is planning,',
    'tokens, encryption and parameter JSON without the driver or PostgreSQL. Stages are timed apart;',
    '"whole Node path" runs parse, prepareEvent and storeEvents as a request does, and its mean includes the',
    'garbage collection the stages leave behind.',
    '',
    header,
    rule,
    ...STAGES.map((stage) => row(stage, sides.map((s) => median(s.stages.get(stage)!)))),
    row('sum of the stage medians', sides.map((s) => STAGES.reduce((sum, st) => sum + median(s.stages.get(st)!), 0))),
    row('whole Node path, median', sides.map((s) => median(s.whole))),
    row('whole Node path, mean', sides.map((s) => mean(s.whole))),
  ];
  const section = lines.join('\n');
  console.log(section);
  if (process.env.BENCH_NO_DOCS !== '1') replaceDocsSection(new URL('../docs/benchmarks.md', import.meta.url), HEADING, section);
}

await main();
