// The tests read the project's copy of the conformance cases so that a clone stands alone. When
// the contract's own folder sits beside the repository, the copy must be identical to it: a case
// changed upstream and not copied would otherwise pass here while the contract says otherwise.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from './helpers/conformance.ts';

const COPY = fileURLToPath(CONFORMANCE_DIR);
const UPSTREAM = fileURLToPath(new URL('../../shared/conformance/', import.meta.url));
const COPIED_ENTRIES = ['wire', 'sdk', 'manifest.json'];

/** Relative path → content of every file under the given entries of a folder. */
function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (relative: string) => {
    const full = path.join(root, relative);
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) walk(path.join(relative, entry));
    } else files.set(relative, readFileSync(full, 'utf8'));
  };
  for (const entry of COPIED_ENTRIES) if (existsSync(path.join(root, entry))) walk(entry);
  return files;
}

describe('conformance cases copy', () => {
  it('holds the wire and sdk cases and the manifest', () => {
    const copy = snapshot(COPY);
    const manifest = JSON.parse(copy.get('manifest.json') ?? '{}') as { wire?: string[] };
    expect(manifest.wire?.length).toBeGreaterThan(0);
    for (const id of manifest.wire ?? []) expect(copy.has(`${id}.json`), id).toBe(true);
    // The contract's manifest already names SDK cases it does not ship yet: only presence is checked.
    expect([...copy.keys()].some((file) => file.startsWith('sdk/'))).toBe(true);
  });

  it.runIf(existsSync(UPSTREAM))('is identical to ../shared/conformance when that folder is present', () => {
    const copy = snapshot(COPY);
    const upstream = snapshot(UPSTREAM);
    expect([...copy.keys()].sort()).toEqual([...upstream.keys()].sort());
    for (const [file, content] of upstream) expect(copy.get(file), file).toBe(content);
  });
});
