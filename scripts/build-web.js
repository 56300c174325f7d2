// Builds the web interface at install time (npm's `prepare`), so that a fresh clone's
// `npm install && npm start` serves it. Skipped, with a note, where it cannot run: an install
// without dev dependencies or without the web/ sources (the Docker image's dependency layers).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = path.join(root, 'web', 'vite.config.ts');
let viteBin = null;
try {
  viteBin = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
} catch {
  viteBin = null;
}
if (!existsSync(config) || viteBin === null || !existsSync(viteBin)) {
  console.log('jtrace: web interface not built here (no web/ sources or no vite); run `npm run build:web` where they are.');
  process.exit(0);
}
const result = spawnSync(process.execPath, [viteBin, 'build', '--config', config, '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
