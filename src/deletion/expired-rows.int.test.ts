// The retention sweep removes rows that only ever expire: spent sign-in throttle rows, ended
// sessions, used or expired password links, and finished alert notifications with their delivery
// log. Each table holds rows on both sides of its age; exactly the old ones go.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { TEST_ENCRYPTION_KEY, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import type { SessionLimits } from './expired-rows.ts';
import { RETENTION_LOCK_KEY } from './limits.ts';
import { startRetentionSweeper, type RetentionSweeper } from './retention-sweep.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const NOW = Date.parse('2026-03-01T00:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const at = (msBeforeNow: number) => new Date(NOW - msBeforeNow);
/** Twelve idle hours, a day at most: sessions below are placed against these. */
const LIMITS: SessionLimits = { idleMinutes: 720, maxHours: 24 };

let db: TestDatabase;
let project: SeededProject;
let userId: string;
let ruleId: string;
const sweepers: RetentionSweeper[] = [];
let windows = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  project = await seedProject(db.pool, keyring, 'expiring');
  userId = randomUUID();
  await db.pool.query(`INSERT INTO users (id, email) VALUES ($1, 'someone@example.com')`, [userId]);
  ruleId = randomUUID();
  await db.pool.query(
    `INSERT INTO alert_rules (project_id, id, name, kind, threshold_count, window_minutes, channel, url, secret_encrypted)
     VALUES ($1, $2, 'lost', 'lost', 1, 1, 'webhook', 'http://127.0.0.1:9/hook', 'v1.x.AAAA')`,
    [project.projectId, ruleId],
  );
});
afterAll(async () => {
  await Promise.all(sweepers.map((sweeper) => sweeper.stop()));
  await db.drop();
});
beforeEach(async () => {
  for (const table of ['sign_in_throttle', 'user_sessions', 'password_links', 'alert_outbox']) await db.pool.query(`DELETE FROM ${table}`);
});

async function throttle(key: string, windowStartedAt: Date, lockedUntil: Date | null): Promise<void> {
  await db.pool.query(`INSERT INTO sign_in_throttle (scope, key, failures, window_started_at, locked_until) VALUES ('address', $1, 5, $2, $3)`, [
    key,
    windowStartedAt,
    lockedUntil,
  ]);
}

async function session(name: string, createdAt: Date, lastSeenAt: Date): Promise<void> {
  const hash = Buffer.from(name.padEnd(32, '0')).toString('hex');
  await db.pool.query(
    `INSERT INTO user_sessions (id_hash, public_id, user_id, admin_epoch, created_at, last_seen_at, user_agent) VALUES ($1, $2, $3, 'e', $4, $5, $6)`,
    [hash, randomUUID(), userId, createdAt, lastSeenAt, name],
  );
}

async function link(name: string, expiresAt: Date, usedAt: Date | null): Promise<void> {
  const hash = Buffer.from(name.padEnd(32, '0')).toString('hex');
  await db.pool.query(
    `INSERT INTO password_links (token_hash, user_id, purpose, created_at, expires_at, used_at) VALUES ($1, $2, 'invitation', $3, $4, $5)`,
    [hash, userId, new Date(expiresAt.getTime() - 3 * DAY), expiresAt, usedAt],
  );
}

/** A notification queued at `createdAt` with `attempts` rows in its delivery log. */
async function notification(status: 'pending' | 'sent' | 'failed', createdAt: Date, attempts: number): Promise<string> {
  const id = randomUUID();
  await db.pool.query(
    `INSERT INTO alert_outbox (project_id, id, rule_id, window_start, notification, body, status, attempts, created_at, next_attempt_at)
     VALUES ($1, $2, $3, $4::timestamptz - make_interval(mins => $7), 'firing', '{}', $5, $6, $4, $4)`,
    // One notification per rule and window: each gets a window of its own.
    [project.projectId, id, ruleId, createdAt, status, attempts, ++windows],
  );
  for (let attempt = 1; attempt <= attempts; attempt++) {
    await db.pool.query(
      `INSERT INTO alert_deliveries (project_id, outbox_id, rule_id, attempt, outcome, created_at) VALUES ($1, $2, $3, $4, 'failed', $5)`,
      [project.projectId, id, ruleId, attempt, new Date(createdAt.getTime() + attempt * MINUTE)],
    );
  }
  return id;
}

async function remaining(): Promise<Record<string, string[]>> {
  const list = async (sql: string) => (await db.pool.query<{ v: string }>(sql)).rows.map((row) => row.v).sort();
  return {
    throttle: await list('SELECT key AS v FROM sign_in_throttle'),
    sessions: await list('SELECT user_agent AS v FROM user_sessions'),
    links: await list(`SELECT rtrim(convert_from(decode(token_hash, 'hex'), 'UTF8'), '0') AS v FROM password_links`),
    notifications: await list('SELECT id::text AS v FROM alert_outbox'),
    deliveries: await list('SELECT outbox_id::text AS v FROM alert_deliveries'),
  };
}

function sweeper(sessionLimits?: SessionLimits) {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const started = startRetentionSweeper({
    pool: db.pool, logger, metrics: createMetrics(), intervalMs: 3_600_000, now: () => NOW, batchSize: 2,
    ...(sessionLimits === undefined ? {} : { sessionLimits }),
  });
  sweepers.push(started);
  return { sweep: started, logs };
}

describe('rows that only ever expire', () => {
  it('go on their documented ages, in batches, counted in the result and the log line', async () => {
    // Throttle: gone once the window started over an hour ago and any lock has run out.
    await throttle('t-live', at(59 * MINUTE), null);
    await throttle('t-still-locked', at(2 * HOUR), new Date(NOW + 10 * MINUTE));
    await throttle('t-spent', at(61 * MINUTE), null);
    await throttle('t-lock-over', at(2 * HOUR), at(MINUTE));
    await throttle('t-long-spent', at(30 * DAY), at(30 * DAY - 5 * MINUTE));
    // Sessions: gone seven days after they ended, by idleness or by age, whichever came first.
    await session('s-live', at(HOUR), at(HOUR));
    await session('s-idle-6d', at(6 * DAY + 13 * HOUR), at(6 * DAY + 12 * HOUR));
    await session('s-idle-7d', at(7 * DAY + 13 * HOUR), at(7 * DAY + 12 * HOUR + MINUTE));
    await session('s-max-6d', at(7 * DAY), at(6 * DAY + HOUR));
    await session('s-max-7d', at(8 * DAY + MINUTE), at(7 * DAY + HOUR));
    // Links: gone thirty days after they were used or expired.
    await link('l-valid', new Date(NOW + DAY), null);
    await link('l-expired-29d', at(29 * DAY), null);
    await link('l-expired-31d', at(31 * DAY), null);
    await link('l-used-31d', at(29 * DAY), at(31 * DAY));
    await link('l-used-10d', at(8 * DAY), at(10 * DAY));
    // Notifications: sent or given up, queued over thirty days ago, go with their delivery log.
    const sentOld = await notification('sent', at(31 * DAY), 2);
    const failedOld = await notification('failed', at(40 * DAY), 3);
    const pendingOld = await notification('pending', at(40 * DAY), 1);
    const sentRecent = await notification('sent', at(29 * DAY), 1);
    const failedRecent = await notification('failed', at(29 * DAY), 2);

    const { sweep, logs } = sweeper(LIMITS);
    const result = await sweep.runOnce();
    expect(result.outcome).toBe('completed');
    expect(result.expiredRowsDeleted).toEqual({ signInThrottle: 3, sessions: 2, passwordLinks: 2, alertNotifications: 2, alertDeliveries: 5 });
    expect(logs.find((line) => line.msg === 'retention sweep')).toMatchObject({ expiredRowsDeleted: result.expiredRowsDeleted });
    expect(await remaining()).toEqual({
      throttle: ['t-live', 't-still-locked'],
      sessions: ['s-idle-6d', 's-live', 's-max-6d'],
      links: ['l-expired-29d', 'l-used-10d', 'l-valid'],
      notifications: [pendingOld, sentRecent, failedRecent].sort(),
      deliveries: [pendingOld, sentRecent, failedRecent, failedRecent].sort(),
    });
    for (const id of [sentOld, failedOld]) expect((await remaining()).notifications).not.toContain(id);

    // A second sweep finds nothing more and logs nothing.
    const logged = logs.length;
    const second = await sweep.runOnce();
    expect(second.expiredRowsDeleted).toEqual({ signInThrottle: 0, sessions: 0, passwordLinks: 0, alertNotifications: 0, alertDeliveries: 0 });
    expect(logs).toHaveLength(logged);
  });

  it('leave sessions alone when the sweep is not told when a session ends', async () => {
    await session('s-ended-long-ago', at(90 * DAY), at(90 * DAY));
    expect((await sweeper().sweep.runOnce()).expiredRowsDeleted.sessions).toBe(0);
    expect((await remaining()).sessions).toEqual(['s-ended-long-ago']);
  });

  it('wait while another process holds the sweep lock', async () => {
    await throttle('t-spent', at(2 * HOUR), null);
    await link('l-expired-31d', at(31 * DAY), null);
    const holder = await db.pool.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [RETENTION_LOCK_KEY]);
      const result = await sweeper(LIMITS).sweep.runOnce();
      expect(result.outcome).toBe('locked');
      expect(result.expiredRowsDeleted.signInThrottle).toBe(0);
      expect((await remaining()).throttle).toEqual(['t-spent']);
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK_KEY]);
      holder.release();
    }
    expect((await sweeper(LIMITS).sweep.runOnce()).expiredRowsDeleted).toMatchObject({ signInThrottle: 1, passwordLinks: 1 });
  });
});
