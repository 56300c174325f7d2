// Scenario 4 of docs/deployment.md, "worker killed": the pieces the scenario uses (a stream of
// journeys that each lose a field, and reads of the findings and the alert outbox on the primary).

import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { contactJourney } from '../../src/forensics/test-journeys.ts';
import { sleep } from './topology.ts';

export interface JourneyStream {
  /** Journeys whose every event was answered accepted. */
  acknowledged: string[];
  /** Answers other than 202 (status and count). */
  refused: Map<number, number>;
  stop(): Promise<void>;
}

/** Sends journeys that lose customer.phone in their normalize step, 16 per batch, until stopped. */
export function streamLosingJourneys(baseUrl: string, apiKey: string, senders = 2): JourneyStream {
  const http = new HttpPool(baseUrl, { connections: senders });
  let running = true;
  let next = 0;
  const stream: JourneyStream = { acknowledged: [], refused: new Map(), stop: async () => {} };
  const send = async (sender: number) => {
    while (running) {
      const ids = Array.from({ length: 16 }, () => `jrn-kill-${process.pid}-${sender}-${next++}`);
      const start = new Date(Date.now() - 60_000).toISOString();
      const events = ids.flatMap((id) => contactJourney(id, 'lost', start)).map((event) => ({ protocolVersion: '0.1', event: { ...event, environment: 'production' } }));
      try {
        const response = await http.request({
          path: '/v1/events/batch', method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
          body: JSON.stringify({ events }),
        });
        const text = await response.body.text();
        if (response.statusCode === 202) {
          const results = (JSON.parse(text) as { data: { results: Array<{ status: string }> } }).data.results;
          if (results.every((r) => r.status === 'accepted')) stream.acknowledged.push(...ids);
          // A steady stream, not a flood: the scenario is about the takeover and losing nothing, and a
          // worker paced by its busy share (docs/findings.md, "Pacing") drains a flood long after it ends.
          await sleep(1_000);
        } else {
          stream.refused.set(response.statusCode, (stream.refused.get(response.statusCode) ?? 0) + 1);
          await sleep(100);
        }
      } catch {
        await sleep(100);
      }
    }
  };
  const all = Array.from({ length: senders }, (_, i) => send(i));
  stream.stop = async () => {
    running = false;
    await Promise.all(all);
    await http.destroy();
  };
  return stream;
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(url);
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export const pendingJourneys = (url: string) =>
  withClient(url, async (c) => (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM journey_findings_pending')).rows[0]!.n);

/** How many of the journeys have their `lost customer.phone` finding stored. */
export const journeysWithLostPhone = (url: string, ids: string[]) =>
  withClient(url, async (c) => {
    const result = await c.query<{ n: number }>(
      `SELECT count(DISTINCT f.journey_id)::int AS n
         FROM journey_findings f, unnest(f.kind, f.path) AS u(kind, path)
        WHERE f.journey_id = ANY($1) AND u.kind = 'lost' AND u.path = 'customer.phone'`,
      [ids],
    );
    return result.rows[0]!.n;
  });

/** The outbox's notifications: id and status. */
export const outbox = (url: string) =>
  withClient(url, async (c) => (await c.query<{ id: string; status: string }>('SELECT id::text, status FROM alert_outbox ORDER BY created_at')).rows);
