#!/usr/bin/env node
// Last step of `npm run build`: tsc emits only JavaScript, but the migration runner reads its
// SQL files from beside itself (src/db/migrate.ts), so they are copied next to dist/db/migrate.js.
import { cpSync, readdirSync } from 'node:fs';

const from = new URL('../src/db/migrations/', import.meta.url);
const to = new URL('../dist/db/migrations/', import.meta.url);
const files = readdirSync(from).filter((name) => name.endsWith('.sql'));
for (const name of files) cpSync(new URL(name, from), new URL(name, to));
process.stdout.write(`copy-migrations: ${files.length} files to dist/db/migrations\n`);
