// Shared set-up of the batch replay tests (not a test itself): a project whose journeys lose the
// phone inside normalize-contact (one problem), each journey's contact named by its number so a
// real receiver on 127.0.0.1 can keep the phone for some and drop it for others.

import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { expect } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { contactJourney } from '../forensics/test-journeys.ts';
import { drainAll, quietAnalyzer } from '../findings/test-kit.ts';
import { admin, createDestinationVia, json, startTarget, type Target } from '../replay/test-kit.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { startProblemReplayRunner, type ProblemReplayRunner } from './runner.ts';

export const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });

export interface ReplayBed {
  db: TestDatabase;
  app: FastifyInstance;
  project: SeededProject;
  target: Target;
  problemId: string;
  destinationId: string;
  close(): Promise<void>;
}

/** The journey number a replayed body names (`Ada 7`), or null. */
export function journeyNumberOf(body: string): number | null {
  const match = /"name":\s*"Ada (\d+)"/.exec(body);
  return match === null ? null : Number(match[1]);
}

/**
 * `journeys` journeys jrn-0.. losing customer.phone, analysed into one problem; a destination
 * at a live target which by default keeps the phone of journeys whose number % 3 is 0, drops it
 * when 1, and answers 500 when 2.
 */
export async function openReplayBed(journeys: number): Promise<ReplayBed> {
  const db = await createTestDatabase();
  const { app } = await buildTestApp(db.pool, { keyring, config: { replayAllowedHosts: ['127.0.0.1'] } });
  const project = await seedProject(db.pool, keyring, 'acme');
  const events = Array.from({ length: journeys }, (_, i) =>
    contactJourney(`jrn-${i}`, 'lost', new Date(Date.parse('2026-02-10T10:00:00.000Z') + i * 60_000).toISOString()).map((event) =>
      JSON.parse(JSON.stringify(event).replaceAll('Ada Lovelace', `Ada ${i}`)) as typeof event),
  ).flat();
  for (let start = 0; start < events.length; start += 100) {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/events/batch',
      headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
      payload: { events: events.slice(start, start + 100).map((event) => ({ protocolVersion: '0.1', event: { environment: 'production', ...event } })) },
    });
    expect(response.statusCode, response.body).toBe(202);
  }
  const analyzer = quietAnalyzer(db.pool);
  await drainAll(analyzer, db.pool);
  await analyzer.stop();
  const problems = await app.inject({ method: 'GET', url: `/v1/projects/${project.projectId}/problems?kind=lost&path=customer.phone`, headers: admin(project.projectId) });
  const problem = (problems.json().data.items as Array<{ id: string; inTransit: boolean; journeys: number }>).find((p) => !p.inTransit)!;
  expect(problem.journeys).toBe(journeys);
  const target = await startTarget();
  target.handle((request, response) => {
    const n = journeyNumberOf(request.body);
    if (n === null || n % 3 === 2) return json(response, 500, { error: 'broken' });
    const body = JSON.parse(request.body) as { customer: Record<string, unknown> };
    if (n % 3 === 1) delete body.customer.phone;
    json(response, 200, body);
  });
  const destination = await createDestinationVia(app, project.projectId, { name: 'fixed contacts', baseUrl: target.origin, environmentType: 'development' });
  return {
    db,
    app,
    project,
    target,
    problemId: problem.id,
    destinationId: destination.id,
    async close() {
      await app.close();
      await target.close();
      await db.drop();
    },
  };
}

export function startRunner(bed: Pick<ReplayBed, 'db'>, pollMs = 100): ProblemReplayRunner {
  return startProblemReplayRunner({ pool: bed.db.pool, keyring, allowedHosts: ['127.0.0.1'], version: 'test', now: Date.now, logger: pino({ level: 'silent' }), pollMs });
}

export interface Batch {
  id: string;
  status: string;
  requested: number;
  completed: number;
  counts: { kept: number; stillLost: number; failed: number };
  [key: string]: unknown;
}

export async function startBatch(bed: ReplayBed, body: Record<string, unknown>, headers: Record<string, string> = admin(bed.project.projectId)) {
  return bed.app.inject({
    method: 'POST',
    url: `/v1/projects/${bed.project.projectId}/problems/${bed.problemId}/replays`,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

export async function readBatch(bed: ReplayBed, id: string): Promise<Batch> {
  const response = await bed.app.inject({ method: 'GET', url: `/v1/projects/${bed.project.projectId}/problem-replays/${id}`, headers: admin(bed.project.projectId) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as Batch;
}

/** Polls until the batch is no longer running (or the condition holds), within a generous bound. */
export async function waitFor(bed: ReplayBed, id: string, until: (batch: Batch) => boolean = (b) => b.status !== 'running', boundMs = 60_000): Promise<Batch> {
  const started = Date.now();
  for (;;) {
    const batch = await readBatch(bed, id);
    if (until(batch)) return batch;
    if (Date.now() - started > boundMs) throw new Error(`batch still ${batch.status} with ${batch.completed}/${batch.requested} after ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
