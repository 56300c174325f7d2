#!/usr/bin/env node
// Step of `npm run build`: tsc emits only JavaScript, but the migration runner reads its SQL
// files from beside itself (src/db/migrate.ts), so they are copied next to dist/db/migrate.js.
// An argument names another output folder (the build test compiles into one of its own).
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const outDir = path.resolve(root, process.argv[2] ?? 'dist');
const from = path.join(root, 'src/db/migrations');
const to = path.join(outDir, 'db/migrations');
const files = readdirSync(from).filter((name) => name.endsWith('.sql'));
for (const name of files) cpSync(path.join(from, name), path.join(to, name));
process.stdout.write(`copy-migrations: ${files.length} files to ${path.relative(root, to)}\n`);
