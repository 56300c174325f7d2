// Which entry a start runs: the JavaScript `npm run build` compiled into dist/ when it is there
// and no source is newer than it, else the TypeScript source through tsx. A fresh clone thus
// starts without a build, and a source edited after a build is never shadowed by the old build.
import { existsSync, readdirSync, statSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);

/** The newest modification time (ms) of what the build compiles or copies: src/ without tests. */
export function newestSourceMtime(root = ROOT) {
  const src = new URL('src/', root);
  if (!existsSync(src)) return 0;
  let newest = 0;
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.test.ts') || !/\.(ts|sql)$/.test(entry.name)) continue;
    newest = Math.max(newest, statSync(`${entry.parentPath}/${entry.name}`).mtimeMs);
  }
  return newest;
}

/**
 * The entry `name` (`main`, `cli/main`) to run: `{ kind: 'compiled', url }` for dist/<name>.js,
 * or `{ kind: 'source', url, reason }` for src/<name>.ts.
 */
export function pickEntry(name, root = ROOT) {
  const compiled = new URL(`dist/${name}.js`, root);
  const source = new URL(`src/${name}.ts`, root);
  if (!existsSync(compiled)) return { kind: 'source', url: source, reason: 'dist/ is not built' };
  if (!existsSync(source)) return { kind: 'compiled', url: compiled };
  if (newestSourceMtime(root) > statSync(compiled).mtimeMs) {
    return { kind: 'source', url: source, reason: 'a file of src/ is newer than the build in dist/' };
  }
  return { kind: 'compiled', url: compiled };
}

/** Runs the entry in this process; a source entry registers tsx's loader first. */
export async function runEntry(entry) {
  if (entry.kind === 'source') {
    const { register } = await import('tsx/esm/api');
    register();
  }
  await import(entry.url.href);
}
