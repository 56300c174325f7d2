// Builds the publishable package: dist/index.js (ESM, Node 20, the shared protocol rules from the
// repository bundled in, no dependency) and dist/index.d.ts (the public declarations in one file).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

await build({
  entryPoints: [path.join(root, 'src/index.ts')],
  outfile: path.join(dist, 'index.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // The OpenTelemetry API is an optional peer, loaded at run time when present.
  external: ['@opentelemetry/api'],
  legalComments: 'none',
  logLevel: 'warning',
});

// Declarations: tsc emits one file per module; the public ones are concatenated into a single
// module so that no declaration points back into the repository's src/.
const typesDir = path.join(dist, '.types');
const tsc = path.join(root, '../../node_modules/typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
const declDir = path.join(typesDir, 'packages/node/src');
const order = ['types', 'version', 'journey', 'recorder', 'propagation', 'timing', 'journey-id'];
const files = readdirSync(declDir).filter((file) => file.endsWith('.d.ts')).map((file) => file.slice(0, -5));
const publicModules = order.filter((name) => files.includes(name));
let out = '// Public declarations of @jtrace/node.\n';
for (const name of publicModules) {
  const text = readFileSync(path.join(declDir, `${name}.d.ts`), 'utf8')
    .split('\n')
    .filter((line) => !/^import .* from '\.\/.*';$/.test(line) && !line.startsWith('//# sourceMappingURL'))
    .join('\n');
  if (/from '\.\.\//.test(text)) throw new Error(`${name}.d.ts refers outside the package`);
  out += `\n// ${name}\n${text}\n`;
}
writeFileSync(path.join(dist, 'index.d.ts'), out);
rmSync(typesDir, { recursive: true, force: true });
