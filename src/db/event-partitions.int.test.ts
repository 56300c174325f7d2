// The server's upkeep of event partitions: days from yesterday to a week ahead exist after the
// first run, and a run that cannot proceed is logged, never thrown.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { EVENT_PARTITION_DAYS_AHEAD, listEventPartitions, startEventPartitionUpkeep } from './event-partitions.ts';

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
});
