// Dependency direction (docs/architecture.md): src/protocol is the kernel the SDK imports
// unchanged, so it imports nothing outside itself, no Node built-in and no package.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Every .ts file under a folder of src, tests excluded, as paths relative to src. */
function sourceFiles(folder: string): string[] {
  const entries = readdirSync(join(SRC, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => relative(SRC, join(e.parentPath, e.name)));
}

/** The module specifiers a file imports or re-exports, type-only and side-effect ones included. */
export function importsOf(text: string): string[] {
  const patterns = [
    /^\s*import\s[^'";]*?['"]([^'"]+)['"]/gm,
    /^\s*export\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1]!));
}

describe('importsOf', () => {
  it('finds every import form', () => {
    const text = [
      "import a from './a.ts';",
      "import type { B } from '../b.ts';",
      "import {\n  c,\n  d,\n} from 'c';",
      "import './side-effect.ts';",
      "export { e } from './e.ts';",
      "export const f = 'not-an-import';",
      "const g = await import('./g.ts');",
    ].join('\n');
    expect(importsOf(text).sort()).toEqual(['../b.ts', './a.ts', './e.ts', './g.ts', './side-effect.ts', 'c']);
  });
});

describe('src/protocol', () => {
  it('imports only its own files', () => {
    const outside: string[] = [];
    for (const file of sourceFiles('protocol')) {
      for (const specifier of importsOf(readFileSync(join(SRC, file), 'utf8'))) {
        const target = specifier.startsWith('.') ? relative(SRC, resolve(SRC, dirname(file), specifier)) : specifier;
        if (!target.startsWith('protocol/')) outside.push(`${file} imports ${specifier}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
