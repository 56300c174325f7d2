// Ingestion into the query benchmark's loaded database against an empty one on the same server
// (bench/query.ts): the same batches (bench/ingest-load.ts, 100 events of 25 new journeys each)
// stored through the ingestion pipeline (prepare, then storeEvents in one transaction), 4
// concurrent transactions, in alternating rounds so that both sides see the same machine load.

import { loadConfig } from '../src/config/config.ts';
import type { Keyring } from '../src/crypto/keyring.ts';
import { migrate } from '../src/db/migrate.ts';
import { withTransaction, type Pool } from '../src/db/pool.ts';
import { prepareEvent, type PrepareContext } from '../src/ingest/prepare.ts';
import { storeEvents } from '../src/ingest/store.ts';
import { findEnvironment } from '../src/projects/environments-sql.ts';
import { createProject } from '../src/projects/projects-sql.ts';
import { BATCH_SIZE, makeBatch } from './ingest-load.ts';

const CLIENTS = 4;
const ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 6);
const BATCHES_PER_ROUND = 40;

export interface IngestRatio {
  loadedEventsPerSecond: number;
  emptyEventsPerSecond: number;
  ratio: number;
}

interface Side {
  pool: Pool;
  ctx: PrepareContext;
  scope: { projectId: string; environmentId: string };
  events: number;
  ms: number;
}

async function side(pool: Pool, keyring: Keyring, projectId: string): Promise<Side> {
  const environment = (await findEnvironment(pool, projectId, 'production'))!;
  const ctx: PrepareContext = {
    keyring, environmentName: 'production', allowFullPayloadCapture: false, maxEventPayloadBytes: loadConfig({}).maxEventPayloadBytes,
    capture: { captureMode: environment.captureMode, redactionPaths: environment.redactionPaths, captureAllowlist: environment.captureAllowlist },
  };
  return { pool, ctx, scope: { projectId, environmentId: environment.id }, events: 0, ms: 0 };
}

async function round(s: Side, tag: string): Promise<void> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < BATCHES_PER_ROUND) {
      const i = next++;
      const inputs = makeBatch(`${tag}_${i}`).map((envelope) => {
        const result = prepareEvent(envelope, s.ctx);
        if (!result.ok) throw new Error(`benchmark event refused: ${result.refusal.code}`);
        return { prepared: result.prepared, receivedAtUs: Date.now() * 1000 };
      });
      await withTransaction(s.pool, (client) => storeEvents(client, s.ctx.keyring, s.scope, inputs));
    }
  }));
  s.ms += performance.now() - started;
  s.events += BATCHES_PER_ROUND * BATCH_SIZE;
}

/** `loaded` holds the data set (project `bench`, environment production); `empty` is a fresh database. */
export async function measureIngestRatio(loaded: Pool, loadedProjectId: string, empty: Pool, keyring: Keyring, log: (line: string) => void): Promise<IngestRatio> {
  await migrate(empty);
  const projectId = (await createProject(empty, 'bench', 'Benchmark')).id;
  await empty.query(`INSERT INTO environments (project_id, id, name, retention_days) VALUES ($1, gen_random_uuid(), 'production', 30)`, [projectId]);
  const big = await side(loaded, keyring, loadedProjectId);
  const fresh = await side(empty, keyring, projectId);
  // One warm-up round each, not counted.
  await round({ ...big }, 'warm');
  await round({ ...fresh }, 'warm');
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [big, fresh] : [fresh, big];
    for (const s of order) await round(s, `r${r}`);
  }
  const rate = (s: Side) => (s.events / s.ms) * 1000;
  const result = { loadedEventsPerSecond: rate(big), emptyEventsPerSecond: rate(fresh), ratio: rate(big) / rate(fresh) };
  log(`ingest: ${Math.round(result.loadedEventsPerSecond)} events/s into the loaded database, ${Math.round(result.emptyEventsPerSecond)} into an empty one: ratio ${result.ratio.toFixed(2)}`);
  return result;
}
