#!/usr/bin/env node
// First step of `npm run build`: fixes the build information /ready reports (interface-spec 4).
// With SERVICE_BUILD_VERSION (and optionally SERVICE_BUILD_COMMIT) set, writes build-info.json
// at the repository root; without either, removes a build-info.json left by an earlier build so
// the running version falls back to the package's own (source `package`). It also clears dist/
// so a file removed from src/ does not survive in the output.
import { rmSync, writeFileSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);
const FILE = new URL('build-info.json', ROOT);
// Printable, shell- and JSON-safe: a version such as 1.4.0-rc.1+build.7, a commit hash or tag.
const SAFE = /^[0-9A-Za-z][0-9A-Za-z._+-]{0,127}$/;

function read(name) {
  const value = process.env[name]?.trim() ?? '';
  if (value === '') return null;
  if (!SAFE.test(value)) {
    process.stderr.write(`build-info: ${name} must be 1 to 128 characters of letters, digits, ".", "_", "+" or "-"\n`);
    process.exit(1);
  }
  return value;
}

const version = read('SERVICE_BUILD_VERSION');
const commit = read('SERVICE_BUILD_COMMIT');

rmSync(new URL('dist/', ROOT), { recursive: true, force: true });
if (version === null && commit === null) {
  rmSync(FILE, { force: true });
  process.stdout.write('build-info: no SERVICE_BUILD_VERSION or SERVICE_BUILD_COMMIT; /ready reports the package version\n');
} else {
  const info = { ...(version === null ? {} : { version }), ...(commit === null ? {} : { commit }) };
  writeFileSync(FILE, `${JSON.stringify(info, null, 2)}\n`);
  process.stdout.write(`build-info: wrote build-info.json (${version === null ? 'commit only' : `version ${version}`})\n`);
}
