import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../test/helpers/app.ts';
import { admin } from '../replay/test-kit.ts';
import { makePerson, sessionOf, tokenOf } from '../teams/test-kit.ts';
import type { ProblemReplayRunner } from './runner.ts';
import { journeyNumberOf, openReplayBed, readBatch, startBatch, startRunner, waitFor, type ReplayBed } from './test-kit.ts';

let bed: ReplayBed;
let runner: ProblemReplayRunner;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  bed = await openReplayBed(9);
  runner = startRunner(bed);
  for (const role of ['viewer', 'operator'] as const) {
    const person = await makePerson(bed.db.pool, { [bed.project.projectId]: role });
    tokens[role] = (await tokenOf(bed.app, await sessionOf(bed.app, person.email))).secret;
  }
});
afterAll(async () => {
  await runner.stop();
  await bed.close();
});

const results = async (id: string, query = '') =>
  bed.app.inject({ method: 'GET', url: `/v1/projects/${bed.project.projectId}/problem-replays/${id}/results${query}`, headers: admin(bed.project.projectId) });

describe('a batch replay against a receiver that keeps the field for some inputs', () => {
  let batchId: string;

  it('answers 202 with the running batch, then reports exact counts, each with its journey', async () => {
    bed.target.requests.length = 0;
    const started = await startBatch(bed, { destinationId: bed.destinationId, ratePerSecond: 50, concurrency: 4 });
    expect(started.statusCode, started.body).toBe(202);
    const batch = started.json().data;
    expect(batch).toMatchObject({ problemId: bed.problemId, destinationId: bed.destinationId, destinationName: 'fixed contacts', requested: 9, ratePerSecond: 50, concurrency: 4, actor: { type: 'admin_token', id: null, name: null }, finishedAt: null });
    batchId = batch.id;
    const done = await waitFor(bed, batchId);
    expect(done).toMatchObject({ status: 'done', requested: 9, completed: 9, counts: { kept: 3, stillLost: 3, failed: 3 } });
    expect(done.finishedAt).not.toBeNull();
    // Each journey's recorded step input was sent once, to the destination's base URL.
    expect(bed.target.requests.map((r) => journeyNumberOf(r.body)).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(bed.target.requests.every((r) => r.method === 'POST' && r.url === '/')).toBe(true);

    const page = (await results(batchId, '?limit=100')).json().data;
    const verdicts = Object.fromEntries(page.items.map((r: { journeyId: string; verdict: string }) => [r.journeyId, r.verdict]));
    for (let i = 0; i < 9; i++) expect(verdicts[`jrn-${i}`]).toBe(['kept', 'still_lost', 'failed'][i % 3]);
    const failed = page.items.find((r: { journeyId: string }) => r.journeyId === 'jrn-2');
    expect(failed.error).toEqual({ code: 'response_status', message: 'The destination answered 500.' });
    const kept = page.items.find((r: { journeyId: string }) => r.journeyId === 'jrn-0');
    expect(kept.error).toBeNull();
    // The replay run behind a verdict is the ordinary one.
    const run = await bed.app.inject({ method: 'GET', url: `/v1/replays/${kept.replayId}`, headers: admin(bed.project.projectId) });
    expect(run.statusCode).toBe(200);
    expect(run.json().data.responsePayload.customer.phone).toBe('+44 20 7946 0018');
  });

  it('filters results by verdict and pages them with a cursor', async () => {
    const kept = (await results(batchId, '?verdict=kept')).json().data;
    expect(kept.items.map((r: { journeyId: string }) => r.journeyId).sort()).toEqual(['jrn-0', 'jrn-3', 'jrn-6']);
    const first = (await results(batchId, '?limit=4')).json().data;
    expect(first.items).toHaveLength(4);
    const second = (await results(batchId, `?limit=10&cursor=${first.nextCursor}`)).json().data;
    expect(second.items).toHaveLength(5);
    expect(second.nextCursor).toBeNull();
    expect(new Set([...first.items, ...second.items].map((r: { journeyId: string }) => r.journeyId)).size).toBe(9);
    expect((await results(batchId, '?verdict=lost')).json().error.code).toBe('invalid_query');
    expect((await results(batchId, '?cursor=nonsense')).json().error.code).toBe('invalid_cursor');
  });

  it('exports the results as CSV with the header journeyId,verdict,replayId,error', async () => {
    const csv = await results(batchId, '?format=csv&verdict=failed');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('journeyId,verdict,replayId,error');
    expect(lines.slice(1).map((line) => line.split(',').slice(0, 2).join(',')).sort()).toEqual(['"jrn-2","failed"', '"jrn-5","failed"', '"jrn-8","failed"']);
    expect(lines[1]).toMatch(/^"jrn-\d","failed","[0-9a-f-]{36}","response_status: The destination answered 500."$/);
    const all = await results(batchId, '?format=csv');
    expect(all.body.trimEnd().split('\r\n')).toHaveLength(10);
  });

  it('lists the batch in the problem replay history with its audit row', async () => {
    const list = await bed.app.inject({ method: 'GET', url: `/v1/projects/acme/problems/${bed.problemId}/replays`, headers: admin(bed.project.projectId) });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data.items[0]).toMatchObject({ id: batchId, status: 'done' });
    const audit = await bed.db.pool.query<{ details: Record<string, unknown>; actor_kind: string }>(`SELECT details, actor_kind FROM audit_log WHERE action = 'problem_replay.started'`);
    expect(audit.rows.map((r) => r.details.batchId)).toContain(batchId);
    expect(JSON.stringify(audit.rows)).not.toContain('jrn-');
  });

  it('answers a finished batch unchanged on cancel', async () => {
    const before = await readBatch(bed, batchId);
    const cancel = await bed.app.inject({ method: 'POST', url: `/v1/projects/${bed.project.projectId}/problem-replays/${batchId}/cancel`, headers: admin(bed.project.projectId) });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json().data).toEqual(before);
  });
});

describe('a deleted journey', () => {
  it('takes its results with it, and the counts follow', async () => {
    const started = await startBatch(bed, { destinationId: bed.destinationId, journeys: 3, ratePerSecond: 50 });
    const id = started.json().data.id as string;
    await waitFor(bed, id);
    const deleted = await bed.app.inject({ method: 'DELETE', url: '/v1/journeys/jrn-6', headers: admin(bed.project.projectId) });
    expect(deleted.statusCode, deleted.body).toBe(204);
    const batch = await readBatch(bed, id);
    expect(batch).toMatchObject({ completed: 2, counts: { kept: 0, stillLost: 1, failed: 1 } });
    expect((await results(id, '?format=csv')).body).not.toContain('jrn-6');
  });
});

describe('who may start a batch', () => {
  it('a viewer reads batches but cannot start or cancel one (403); an operator can', async () => {
    const viewer = await startBatch(bed, { destinationId: bed.destinationId }, bearer(tokens.viewer!));
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json().error.code).toBe('forbidden');
    const list = await bed.app.inject({ method: 'GET', url: `/v1/projects/${bed.project.projectId}/problems/${bed.problemId}/replays`, headers: bearer(tokens.viewer!) });
    expect(list.statusCode).toBe(200);
    const operator = await startBatch(bed, { destinationId: bed.destinationId, journeys: 1, ratePerSecond: 50 }, bearer(tokens.operator!));
    expect(operator.statusCode, operator.body).toBe(202);
    expect(operator.json().data.actor).toMatchObject({ type: 'user', name: expect.stringContaining('@') });
    const cancel = await bed.app.inject({ method: 'POST', url: `/v1/projects/${bed.project.projectId}/problem-replays/${operator.json().data.id}/cancel`, headers: bearer(tokens.viewer!) });
    expect(cancel.statusCode).toBe(403);
    await waitFor(bed, operator.json().data.id);
  });
});

describe('limits', () => {
  const refused = async (body: Record<string, unknown>) => {
    const response = await startBatch(bed, { destinationId: bed.destinationId, ...body });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
  };
  it('journeys 1..1000', async () => {
    await refused({ journeys: 0 });
    await refused({ journeys: 1001 });
    await refused({ journeys: 2.5 });
  });
  it('ratePerSecond 0.1..50', async () => {
    await refused({ ratePerSecond: 0.05 });
    await refused({ ratePerSecond: 51 });
  });
  it('concurrency 1..8', async () => {
    await refused({ concurrency: 0 });
    await refused({ concurrency: 9 });
  });
  it('an unknown field, a missing or non-uuid destination', async () => {
    await refused({ extra: true });
    await refused({ destinationId: 'nope' });
  });
  it('unknown problem, destination or batch: 404 not_found; nothing is stored', async () => {
    const count = async () => (await bed.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM problem_replays')).rows[0]!.n;
    const before = await count();
    const unknownDestination = await startBatch(bed, { destinationId: '00000000-0000-4000-8000-000000000000' });
    expect([unknownDestination.statusCode, unknownDestination.json().error.code]).toEqual([404, 'not_found']);
    const unknownProblem = await bed.app.inject({ method: 'POST', url: `/v1/projects/${bed.project.projectId}/problems/00000000-0000-4000-8000-000000000000/replays`, headers: { ...admin(bed.project.projectId), 'content-type': 'application/json' }, payload: JSON.stringify({ destinationId: bed.destinationId }) });
    expect([unknownProblem.statusCode, unknownProblem.json().error.code]).toEqual([404, 'not_found']);
    const unknownHistory = await bed.app.inject({ method: 'GET', url: `/v1/projects/${bed.project.projectId}/problems/00000000-0000-4000-8000-000000000000/replays`, headers: admin(bed.project.projectId) });
    expect([unknownHistory.statusCode, unknownHistory.json().error.code]).toEqual([404, 'not_found']);
    const unknownBatch = await bed.app.inject({ method: 'GET', url: `/v1/projects/${bed.project.projectId}/problem-replays/not-a-uuid`, headers: admin(bed.project.projectId) });
    expect([unknownBatch.statusCode, unknownBatch.json().error.code]).toEqual([404, 'not_found']);
    expect(await count()).toBe(before);
  });
  it('journeys bounds the batch to the problem latest journeys', async () => {
    const response = await startBatch(bed, { destinationId: bed.destinationId, journeys: 2, ratePerSecond: 50 });
    expect(response.json().data.requested).toBe(2);
    const done = await waitFor(bed, response.json().data.id);
    const items = (await results(done.id)).json().data.items.map((r: { journeyId: string }) => r.journeyId);
    expect(items).toEqual(['jrn-8', 'jrn-7']);
  });
});
