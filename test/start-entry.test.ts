// `npm start` and the `jtrace` bin run the compiled build only when it is current: a file of src/
// changed after `npm run build` sends them back to the sources (scripts/entry-point.js).
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { pickEntry } from '../scripts/entry-point.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository root with the given files, each at its modification time in seconds. */
function tree(files: Record<string, number>): URL {
  const root = mkdtempSync(path.join(os.tmpdir(), 'jtrace-entry-'));
  dirs.push(root);
  for (const [file, seconds] of Object.entries(files)) {
    const full = path.join(root, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, '');
    utimesSync(full, seconds, seconds);
  }
  return pathToFileURL(`${root}/`);
}

describe('pickEntry', () => {
  it('runs the build when it is newer than every source', () => {
    const root = tree({ 'src/main.ts': 100, 'src/db/migrations/0001_a.sql': 100, 'src/cli/main.ts': 100, 'dist/main.js': 200, 'dist/cli/main.js': 200 });
    expect(pickEntry('main', root)).toEqual({ kind: 'compiled', url: new URL('dist/main.js', root) });
    expect(pickEntry('cli/main', root)).toEqual({ kind: 'compiled', url: new URL('dist/cli/main.js', root) });
  });

  it('runs the sources without a build', () => {
    const root = tree({ 'src/main.ts': 100 });
    expect(pickEntry('main', root)).toEqual({ kind: 'source', url: new URL('src/main.ts', root), reason: 'dist/ is not built' });
  });

  it('runs the sources when any source or migration changed after the build, a test file aside', () => {
    const base = { 'src/main.ts': 100, 'src/query/search.ts': 100, 'dist/main.js': 200 };
    expect(pickEntry('main', tree({ ...base, 'src/query/search.ts': 300 })).kind).toBe('source');
    expect(pickEntry('main', tree({ ...base, 'src/db/migrations/0024_new.sql': 300 })).kind).toBe('source');
    expect(pickEntry('main', tree({ ...base, 'src/query/search.int.test.ts': 300, 'src/notes.md': 300 })).kind).toBe('compiled');
  });

  it('runs the build where there are no sources (an image holds dist/ alone)', () => {
    const root = tree({ 'dist/main.js': 100 });
    expect(pickEntry('main', root)).toEqual({ kind: 'compiled', url: new URL('dist/main.js', root) });
  });
});
