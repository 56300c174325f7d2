#!/usr/bin/env node
// The operator CLI: the compiled dist/cli/main.js when `npm run build` made it and no source is
// newer, else the sources through tsx's loader (scripts/entry-point.js).
import { pickEntry, runEntry } from '../scripts/entry-point.js';

await runEntry(pickEntry('cli/main'));
