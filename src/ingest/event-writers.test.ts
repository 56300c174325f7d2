// Every event needs its event_ids row (migration 0017: idempotency, replay runs, one-partition
// reads). Since migration 0020 no trigger writes it: the statement that inserts events does.
// This test reads every source, test, bench and script file of the repository and fails when
// one inserts into events without also writing event_ids, so a new writer (a fixture, a demo
// loader, a bench) cannot store events that a resend would not find.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FOLDERS = ['src', 'test', 'bench', 'scripts', 'examples', 'packages'];
const EXTENSIONS = /\.(ts|tsx|js|mjs|sql|py|sh)$/;
/** Written while migration 0017's trigger filled event_ids, which it did for this statement. */
const BEFORE_0020 = /^src\/db\/migrations\/00(0\d|1\d)_/;
/** Writers of a schema older than event_ids, by file, with the reason. */
const OLDER_SCHEMA: Record<string, string> = {
  'bench/partitions.ts': 'its second database is the schema before migration 0017, which had no event_ids',
};

export const INSERT_INTO_EVENTS = /\binsert\s+into\s+events\b(?!_)/i;
const INSERT_INTO_EVENT_IDS = /\binsert\s+into\s+event_ids\b/i;

function files(folder: string): string[] {
  const entries = readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && EXTENSIONS.test(e.name) && !e.parentPath.includes('node_modules') && !e.parentPath.includes('dist'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

describe('writers of events', () => {
  it('recognises an insert into events, and not into events_default or a partition', () => {
    expect(INSERT_INTO_EVENTS.test('INSERT INTO events (project_id, id)')).toBe(true);
    expect(INSERT_INTO_EVENTS.test('insert\n  into events SELECT')).toBe(true);
    expect(INSERT_INTO_EVENTS.test('INSERT INTO events_default SELECT')).toBe(false);
    expect(INSERT_INTO_EVENTS.test('INSERT INTO event_ids SELECT')).toBe(false);
  });

  it('every file that inserts events writes their event_ids rows too', () => {
    const writers = FOLDERS.flatMap(files).filter((file) => {
      if (BEFORE_0020.test(file) || file in OLDER_SCHEMA || file === 'src/ingest/event-writers.test.ts') return false;
      return INSERT_INTO_EVENTS.test(readFileSync(join(ROOT, file), 'utf8'));
    });
    expect(writers).toContain('src/ingest/ingest-sql.ts');
    const withoutIds = writers.filter((file) => !INSERT_INTO_EVENT_IDS.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(withoutIds).toEqual([]);
  });
});
