// Ingestion into a journey that has gathered many aliases (npm run bench:ingest-aliases): a
// service that identifies a record by a new reference at every step, or a hostile client, can
// give one journey tens of thousands. Measures building such a journey, then single events
// with 10 new aliases sent to it against the same events sent to fresh journeys, and writes
// the `## Ingestion into a journey with many aliases` section of docs/benchmarks.md.
import os from 'node:os';
import { startBenchServer } from './bench-server.ts';
import { replaceDocsSection } from './docs-section.ts';

const ALIASES_PER_EVENT = 1_000;
const BUILD_EVENTS = 20;
const EVENTS_PER_BATCH = 5;
const PROBES = 30;
const DOCS = new URL('../docs/benchmarks.md', import.meta.url);

function envelope(journeyId: string, id: string, aliases: Record<string, string>, second: number) {
  return {
    protocolVersion: '0.1',
    event: {
      id,
      journeyId,
      environment: 'production',
      service: 'crm-sync',
      entity: { type: 'contact', id: journeyId },
      operation: 'identified',
      name: 'identify',
      timestamp: new Date(Date.UTC(2026, 10, 1) + second * 1000).toISOString(),
      aliases,
    },
  };
}

function aliasesOf(prefix: string, count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, k) => [`ref${k}`, `${prefix}-${k}`]));
}

async function post(baseUrl: string, apiKey: string, path: string, body: unknown): Promise<number> {
  const started = performance.now();
  const response = await fetch(baseUrl + path, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 202 || text.includes('"rejected"')) throw new Error(`${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const load = os.loadavg()[0] ?? 0;
  const server = await startBenchServer();
  try {
    const { baseUrl, apiKey } = server;
    const buildStarted = performance.now();
    for (let batch = 0; batch < BUILD_EVENTS / EVENTS_PER_BATCH; batch++) {
      const events = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => {
        const n = batch * EVENTS_PER_BATCH + i;
        return envelope('wide', `evt_wide_${n}`, aliasesOf(`wide-${n}`, ALIASES_PER_EVENT), n);
      });
      await post(baseUrl, apiKey, '/v1/events/batch', { events });
    }
    const buildMs = performance.now() - buildStarted;
    // Autovacuum analyzes a table after that many inserts; the bench does not wait for it.
    await server.pool.query('ANALYZE');
    const total = BUILD_EVENTS * ALIASES_PER_EVENT;
    console.log(`built a journey of ${total} aliases in ${Math.round(buildMs)} ms`);

    const wide: number[] = [];
    const fresh: number[] = [];
    for (let probe = 0; probe < PROBES; probe++) {
      wide.push(await post(baseUrl, apiKey, '/v1/events', envelope('wide', `evt_probe_wide_${probe}`, aliasesOf(`probe-${probe}`, 10), 100 + probe)));
      fresh.push(await post(baseUrl, apiKey, '/v1/events', envelope(`fresh-${probe}`, `evt_probe_fresh_${probe}`, aliasesOf(`probe-${probe}`, 10), 100 + probe)));
    }
    console.log(`one event with 10 new aliases: ${median(wide).toFixed(1)} ms into the wide journey, ${median(fresh).toFixed(1)} ms into a fresh one (medians of ${PROBES})`);

    replaceDocsSection(
      DOCS,
      '## Ingestion into a journey with many aliases',
      `## Ingestion into a journey with many aliases

\`npm run bench:ingest-aliases\` (bench/ingest-aliases.ts), ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}, ${os.cpus().length} cores, PostgreSQL ${server.postgresVersion}
(load average ${load.toFixed(1)} at the start).

| Figure | Value |
|---|---|
| Building one journey of ${total.toLocaleString('en-US')} aliases (${BUILD_EVENTS} events of ${ALIASES_PER_EVENT.toLocaleString('en-US')}, ${EVENTS_PER_BATCH} per batch) | ${Math.round(buildMs).toLocaleString('en-US')} ms |
| One event with 10 new aliases into that journey, median of ${PROBES} | ${median(wide).toFixed(1)} ms |
| The same event into a fresh journey, median of ${PROBES} | ${median(fresh).toFixed(1)} ms |

- A batch reads only the stored aliases holding a value it states (their tokens, in one pass
  inside PostgreSQL) and finds them in memory by key, so an event into a wide journey costs
  little more than one into a fresh journey (docs/ingestion.md).
`,
    );
    console.log('Wrote the "Ingestion into a journey with many aliases" section of docs/benchmarks.md');
  } finally {
    await server.stop();
  }
}

await main();
