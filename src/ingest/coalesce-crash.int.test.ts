import { spawn, type ChildProcess } from 'node:child_process';
import { Pool as HttpPool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { freePort } from '../../test/helpers/free-port.ts';
import { testEnvelope } from './test-fixtures.ts';

/**
 * The real server (src/main.ts) under concurrent single events, with a wait long enough that
 * most events sit in an open group at any moment, then killed with SIGKILL or stopped with
 * SIGTERM: every event answered 202 is stored, with its journey whole.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const CLIENTS = 32;
/** Long enough that a signal surely finds events gathered but not yet committed. */
const MAX_WAIT_MS = 50;

let db: TestDatabase;
let project: SeededProject;
const children: ChildProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  project = await seedProject(db.pool, keyring, 'crash');
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await db.drop();
});

async function startServer(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: new URL('../../', import.meta.url),
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: db.url, ADMIN_TOKEN: TEST_ADMIN_TOKEN, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', FINDINGS_ANALYZER_ENABLED: 'false',
      INGEST_COALESCE_MAX_WAIT_MS: String(MAX_WAIT_MS),
    },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  children.push(child);
  const baseUrl = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${baseUrl}/health`).then((r) => r.ok, () => false);
    if (up) return { child, baseUrl };
    if (Date.now() > until || child.exitCode !== null) throw new Error('the server did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Load {
  accepted: string[];
  /** Events answered 202 after the signal was sent. */
  acceptedAfterSignal: number;
  /** Requests that got no answer (the connection was cut or refused). */
  unanswered: number;
  otherAnswers: number[];
}

/**
 * CLIENTS senders until the server stops answering; `signal` is sent a fifth of the wait after
 * `after` events were accepted: by then the senders answered last have sent their next events,
 * which wait in an open group (sent at the moment of an answer, it could find every sender between
 * an answer and its next request).
 */
async function loadUntilGone(baseUrl: string, after: number, signal: () => void): Promise<Load> {
  const http = new HttpPool(baseUrl, { connections: CLIENTS });
  const load: Load = { accepted: [], acceptedAfterSignal: 0, unanswered: 0, otherAnswers: [] };
  let scheduled = false;
  let signalled = false;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    for (;;) {
      const body = testEnvelope();
      try {
        const response = await http.request({ path: '/v1/events', method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', authorization: `Bearer ${project.apiKey}` } });
        await response.body.text();
        if (response.statusCode === 202) {
          load.accepted.push(body.event.id as string);
          if (signalled) load.acceptedAfterSignal++;
        } else {
          load.otherAnswers.push(response.statusCode);
          if (signalled) return;
        }
      } catch {
        load.unanswered++;
        return;
      }
      if (!scheduled && load.accepted.length >= after) {
        scheduled = true;
        setTimeout(() => {
          signalled = true;
          signal();
        }, MAX_WAIT_MS / 5);
      }
    }
  }));
  await http.destroy();
  return load;
}

async function expectStoredWhole(ids: string[]): Promise<void> {
  const stored = await db.pool.query<{ id: string }>('SELECT id FROM events WHERE project_id = $1 AND id = ANY($2)', [project.projectId, ids]);
  expect(new Set(stored.rows.map((r) => r.id))).toEqual(new Set(ids));
  // Each event started its own journey: a journey without its event, or counted wrong, would be a torn group.
  const torn = await db.pool.query(
    `SELECT j.id FROM journeys j WHERE j.project_id = $1
        AND j.event_count <> (SELECT count(*) FROM events e WHERE e.project_id = j.project_id AND e.journey_id = j.id)`,
    [project.projectId],
  );
  expect(torn.rows).toEqual([]);
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });

describe('a server stopped while single events wait in groups', () => {
  it('killed with SIGKILL: every event answered 202 is stored', async () => {
    const { child, baseUrl } = await startServer();
    const load = await loadUntilGone(baseUrl, 400, () => child.kill('SIGKILL'));
    expect(await exited(child)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(load.accepted.length).toBeGreaterThanOrEqual(400);
    // The kill found requests in flight: some were never answered.
    expect(load.unanswered).toBeGreaterThan(0);
    expect(load.otherAnswers).toEqual([]);
    await expectStoredWhole(load.accepted);
  }, 120_000);

  it('stopped with SIGTERM: the waiting events are stored and answered, and every 202 is stored', async () => {
    const { child, baseUrl } = await startServer();
    const load = await loadUntilGone(baseUrl, 400, () => child.kill('SIGTERM'));
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    // Events gathered when the signal came were committed and answered, not dropped.
    expect(load.acceptedAfterSignal).toBeGreaterThan(0);
    // Requests that came after the server began closing are refused whole (503), never half-stored.
    expect(load.otherAnswers.filter((status) => status !== 503)).toEqual([]);
    await expectStoredWhole(load.accepted);
  }, 120_000);
});
