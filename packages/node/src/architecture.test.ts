// The SDK reaches the repository only through src/protocol, and only through shared-rules.ts, so
// the published bundle carries the kernel and nothing of the server.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('.', import.meta.url));
const IMPORT = /^\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

describe('packages/node/src imports', () => {
  it('only node: built-ins, its own files, and src/protocol through shared-rules.ts', () => {
    const wrong: string[] = [];
    for (const file of readdirSync(SRC).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.startsWith('test-'))) {
      for (const match of readFileSync(`${SRC}${file}`, 'utf8').matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2] ?? '';
        const ok =
          specifier.startsWith('node:') ||
          /^\.\/[a-z-]+\.ts$/.test(specifier) ||
          (file === 'shared-rules.ts' && specifier.startsWith('../../../src/protocol/'));
        if (!ok) wrong.push(`${file} imports ${specifier}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
