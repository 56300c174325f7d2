// The server's upkeep of event partitions: days from yesterday to a week ahead exist after the
// first run, and a run that cannot proceed is logged, never thrown.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { EVENT_PARTITION_DAYS_AHEAD, ensureEventPartitions, listEventPartitions, startEventPartitionUpkeep } from './event-partitions.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

function logger() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) };
}

describe('event partition upkeep', () => {
  it('creates yesterday to a week ahead at start, once', async () => {
    const now = Date.parse('2028-02-28T23:30:00Z');
    const { lines, logger: log } = logger();
    const upkeep = startEventPartitionUpkeep({ pool: db.pool, logger: log, now: () => now });
    await upkeep.firstRun;
    await upkeep.stop();
    const names = (await listEventPartitions(db.pool)).map((p) => p.name);
    // 2028 is a leap year: the 29th of February is a day of its own.
    const expected = ['events_p20280227', 'events_p20280228', 'events_p20280229', 'events_p20280301', 'events_p20280306'];
    expect(names).toEqual(expect.arrayContaining(expected));
    expect(names).not.toContain('events_p20280307');
    expect(lines.find((line) => line.msg === 'event partitions created')).toMatchObject({ created: EVENT_PARTITION_DAYS_AHEAD + 2 });

    const again = logger();
    const second = startEventPartitionUpkeep({ pool: db.pool, logger: again.logger, now: () => now });
    await second.firstRun;
    await second.stop();
    expect(again.lines).toEqual([]);
  });

  it('logs a failed run by class and code only, and keeps the process going', async () => {
    const { lines, logger: log } = logger();
    // An upkeep that waits on a lock it cannot get within its timeout.
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE events_default IN ACCESS EXCLUSIVE MODE');
      const upkeep = startEventPartitionUpkeep({ pool: db.pool, logger: log, now: () => Date.parse('2029-06-01T00:00:00Z') });
      await upkeep.firstRun;
      await upkeep.stop();
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    const failed = lines.find((line) => line.msg === 'event partition upkeep failed');
    expect(failed).toMatchObject({ err: { code: '55P03' } });
    expect(JSON.stringify(failed)).not.toContain('events_default');
  });

  it('every partition keeps rows of up to a page inline and uncompressed (migration 0021)', async () => {
    const project = '00000000-0000-4000-8000-0000000000a1';
    const environment = '00000000-0000-4000-8000-0000000000a2';
    await db.pool.query(`INSERT INTO projects (id, slug, name) VALUES ($1, 'toast', 'Toast')`, [project]);
    await db.pool.query(`INSERT INTO environments (project_id, id, name, retention_days) VALUES ($1, $2, 'production', 30)`, [project, environment]);
    await db.pool.query(
      `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, started_at, last_event_at)
       VALUES ($1, 'jrn-toast', $2, 'order', 'x', now(), now())`,
      [project, environment],
    );
    // A day no partition covers yet: its row waits in the default partition, then moves into
    // the day's partition when the upkeep creates it (the other way a partition is made).
    const day = '2031-03-04T12:00:00Z';
    const payload = JSON.stringify({ note: 'abc'.repeat(800) }); // about 2.4 KB, compresses to a few dozen bytes
    await db.pool.query(
      `WITH ids AS (INSERT INTO event_ids (project_id, id, journey_id, received_at) VALUES ($1, 'evt-toast', 'jrn-toast', $3))
       INSERT INTO events (project_id, id, journey_id, environment_id, operation, name, service, event_timestamp, received_at,
                           has_input, has_output, has_error, input_payload, content_hash, content_hash_key_id)
       VALUES ($1, 'evt-toast', 'jrn-toast', $2, 'received', 'step', 'api', $3, $3, true, false, false, $4, 'h', 'k')`,
      [project, environment, day, payload],
    );
    await ensureEventPartitions(db.pool, Date.parse(day));
    const partitions = await db.pool.query<{ name: string; options: string[] | null }>(
      `SELECT p.name, c.reloptions AS options FROM jtrace_event_partitions() p JOIN pg_class c ON c.relname = p.name ORDER BY p.name`,
    );
    expect(partitions.rows.map((row) => row.name)).toEqual(expect.arrayContaining(['events_default', 'events_history', 'events_p20310304', 'events_p20310310']));
    for (const row of partitions.rows) expect({ name: row.name, options: row.options }).toEqual({ name: row.name, options: ['toast_tuple_target=8160'] });
    const stored = await db.pool.query<{ part: string; size: number }>(
      `SELECT tableoid::regclass::text AS part, pg_column_size(input_payload) AS size FROM events WHERE project_id = $1 AND id = 'evt-toast'`,
      [project],
    );
    expect(stored.rows[0]!.part).toBe('events_p20310304');
    // Moved rows are written anew into the new partition, so they are stored uncompressed too.
    expect(stored.rows[0]!.size).toBeGreaterThan(2_000);
  });
});
