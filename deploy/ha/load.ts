// Ingestion load for the deployment scenarios: senders of batches and of single events through
// HAProxy, every answer recorded (status, Retry-After, time taken) and every acknowledged event
// id kept, so a scenario can check that nothing answered 2xx was lost.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { testEnvelope } from '../../src/ingest/test-fixtures.ts';
import { ADMIN_TOKEN, ENCRYPTION_KEY, sleep } from './topology.ts';

const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Answer {
  route: 'batch' | 'single';
  status: number;
  retryAfter: string | null;
  startedAt: number;
  ms: number;
}

export interface Load {
  answers: Answer[];
  acknowledged: string[];
  /** The journey of each acknowledged event, in the same order. */
  acknowledgedJourneys: string[];
  /** When each acknowledged event's request began (ms since the epoch), in the same order. */
  acknowledgedAt: number[];
  /** Requests that got no HTTP answer at all (connection refused or cut). */
  unanswered: Array<{ route: string; startedAt: number; message: string }>;
  stop(): Promise<void>;
}

/** A project and an API key made with the CLI against the database, as an operator would. */
export function createProjectKey(databaseUrl: string, slug: string): string {
  const run = (...args: string[]) => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: REPOSITORY, env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, ENCRYPTION_KEY, ADMIN_TOKEN }, encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`jtrace ${args[0]} failed: ${result.stderr}`);
    return result.stdout;
  };
  run('project:create', slug, `Project ${slug}`);
  return (JSON.parse(run('key:create', slug, 'production', 'ha-load', '--json')) as { apiKey: string }).apiKey;
}

export function startLoad(baseUrl: string, apiKey: string, senders: { batch: number; single: number; batchSize?: number }): Load {
  const http = new HttpPool(baseUrl, { connections: senders.batch + senders.single, headersTimeout: 60_000, bodyTimeout: 60_000 });
  let running = true;
  const load: Load = { answers: [], acknowledged: [], acknowledgedJourneys: [], acknowledgedAt: [], unanswered: [], stop: async () => {} };
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
  const send = async (route: 'batch' | 'single') => {
    while (running) {
      const envelopes = Array.from({ length: route === 'batch' ? (senders.batchSize ?? 20) : 1 }, () => testEnvelope());
      const startedAt = Date.now();
      try {
        const response = await http.request({
          path: route === 'batch' ? '/v1/events/batch' : '/v1/events', method: 'POST', headers,
          body: JSON.stringify(route === 'batch' ? { events: envelopes } : envelopes[0]),
        });
        const text = await response.body.text();
        const retryAfter = response.headers['retry-after'];
        load.answers.push({ route, status: response.statusCode, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, startedAt, ms: Date.now() - startedAt });
        const acknowledge = (eventId: string) => {
          load.acknowledged.push(eventId);
          load.acknowledgedAt.push(startedAt);
          load.acknowledgedJourneys.push(envelopes.find((e) => e.event.id === eventId)!.event.journeyId as string);
        };
        if (response.statusCode === 202 && route === 'single') acknowledge(envelopes[0]!.event.id as string);
        if (response.statusCode === 202 && route === 'batch') {
          const results = (JSON.parse(text) as { data: { results: Array<{ eventId: string; status: string }> } }).data.results;
          for (const result of results) if (result.status === 'accepted') acknowledge(result.eventId);
        }
        if (response.statusCode !== 202) await sleep(100);
      } catch (error) {
        load.unanswered.push({ route, startedAt, message: (error as Error).message });
        await sleep(100);
      }
    }
  };
  const all = [
    ...Array.from({ length: senders.batch }, () => send('batch')),
    ...Array.from({ length: senders.single }, () => send('single')),
  ];
  load.stop = async () => {
    running = false;
    await Promise.all(all);
    await http.destroy();
  };
  return load;
}

/** How many of the ids the database holds, read on the primary. */
export async function countStored(databaseUrl: string, ids: string[]): Promise<number> {
  const client = new pg.Client(databaseUrl);
  client.on('error', () => {});
  await client.connect();
  try {
    const result = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE id = ANY($1)', [ids]);
    return result.rows[0]!.n;
  } finally {
    await client.end();
  }
}

/** Statuses seen, with their counts. */
export function statusCounts(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) counts[`${answer.route} ${answer.status}`] = (counts[`${answer.route} ${answer.status}`] ?? 0) + 1;
  return counts;
}
