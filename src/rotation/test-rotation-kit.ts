// Shared set-up of the rotation tests: keyrings A, B+A and B, a CLI context over the test
// database, and events that carry every kind of identifier a search token is made from.

import type { FastifyInstance } from 'fastify';
import { createKeyring, type Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import { bearer } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';

export const KEY_A = 'rotation-key-A-0123456789abcdefghijklmnopqrstuv';
export const KEY_B = 'rotation-key-B-0123456789abcdefghijklmnopqrstuv';
export const KEYRING_A = createKeyring({ current: KEY_A });
export const KEYRING_BA = createKeyring({ current: KEY_B, previous: KEY_A });
export const KEYRING_B = createKeyring({ current: KEY_B });

export interface CliRun {
  status: number;
  out: string[];
  err: string[];
}

/** Runs a CLI command against the test pool with the given keyring, capturing its output. */
export async function cli(pool: Pool, keyring: Keyring, argv: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const { code, out, err } = await runTestCli(argv, { pool, keyring }, env);
  return { status: code, out, err };
}

export interface JourneyFixture {
  journeyId: string;
  entityId: string;
  aliases: Record<string, string>;
  traceId: string;
  spanId: string;
  messageId: string;
  correlationId: string;
  eventIds: string[];
}

let counter = 0;
const uid = () => `${process.pid.toString(36)}${(++counter).toString(36)}`;

/** A journey whose identifiers exercise normalization (white space, an upper-case UUID). */
export function journeyFixture(): JourneyFixture {
  const n = uid();
  const hex = (process.pid * 10_000 + counter).toString(16).padStart(12, '0').slice(-12).toUpperCase();
  return {
    journeyId: `jrn_rot_${n}`,
    entityId: ` ord-${n} `,
    aliases: { email: `someone.${n}@example.com`, crm: `0018Z0000${n}ABC`, ref: `A1B2C3D4-0000-4000-8000-${hex}` },
    traceId: `trace-${n}`,
    spanId: `span-${n}`,
    messageId: `msg-${n}`,
    correlationId: `corr-${n}`,
    eventIds: [`evt_rot_${n}_1`, `evt_rot_${n}_2`],
  };
}

export function envelopes(journey: JourneyFixture): unknown[] {
  const base = {
    journeyId: journey.journeyId,
    environment: 'production',
    service: 'checkout',
    entity: { type: 'order', id: journey.entityId },
    timestamp: '2026-08-06T16:31:02.120Z',
    traceId: journey.traceId,
    spanId: journey.spanId,
    messageId: journey.messageId,
    correlationId: journey.correlationId,
  };
  return [
    { protocolVersion: '0.1', event: { ...base, id: journey.eventIds[0], operation: 'received', name: 'order received', aliases: { email: journey.aliases.email, crm: journey.aliases.crm }, displayableAliases: ['crm'] } },
    { protocolVersion: '0.1', event: { ...base, id: journey.eventIds[1], operation: 'persisted', name: 'order saved', timestamp: '2026-08-06T16:31:03.000Z', aliases: { ref: journey.aliases.ref }, displayableAliases: ['ref'] } },
  ];
}

export async function ingestBatch(app: FastifyInstance, apiKey: string, events: unknown[]) {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/events/batch',
    headers: { 'content-type': 'application/json', ...bearer(apiKey) },
    payload: JSON.stringify({ events }),
  });
  return { status: response.statusCode, results: (response.json() as { data: { results: Array<{ status: string; error?: { code: string } }> } }).data.results };
}

/** Every plain identifier of the fixtures, to prove that no output line carries one. */
export function plainValues(journeys: JourneyFixture[]): string[] {
  return journeys.flatMap((j) => [j.entityId.trim(), ...Object.values(j.aliases), j.traceId, j.messageId, j.correlationId]);
}
