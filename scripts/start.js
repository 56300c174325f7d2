#!/usr/bin/env node
// `npm start`: the compiled server (dist/main.js, from `npm run build`) when it is built and
// current, else src/main.ts through tsx with a note on stderr saying why (scripts/entry-point.js).
import { pickEntry, runEntry } from './entry-point.js';

const entry = pickEntry('main');
if (entry.kind === 'source') {
  process.stderr.write(`jtrace: running the TypeScript sources through tsx (${entry.reason}); \`npm run build\` compiles the server\n`);
}
await runEntry(entry);
