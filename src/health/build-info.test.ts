import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readBuildInfo } from './build-info.ts';

/** Build information as /ready reports it: fixed by `npm run build`, else the package's own. */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function root(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'jtrace-build-info-'));
  roots.push(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'jtrace', version: '0.3.1' }));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}
const read = (dir: string) => readBuildInfo(pathToFileURL(`${dir}/`));

/** Runs a copy of scripts/build-info.js whose repository root is `dir`. */
function runBuildScript(dir: string, env: Record<string, string>): void {
  mkdirSync(path.join(dir, 'scripts'), { recursive: true });
  copyFileSync(new URL('../../scripts/build-info.js', import.meta.url), path.join(dir, 'scripts', 'build-info.js'));
  execFileSync(process.execPath, [path.join(dir, 'scripts', 'build-info.js')], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
}

describe('readBuildInfo', () => {
  it('reports the package version with source package when nothing was fixed at build time', () => {
    expect(read(root())).toEqual({ version: '0.3.1', source: 'package' });
  });

  it('reports a fixed version and commit with source build', () => {
    expect(read(root({ 'build-info.json': '{"version":"1.4.0","commit":"9f2c1ab"}' }))).toEqual({ version: '1.4.0', commit: '9f2c1ab', source: 'build' });
  });

  it('omits the commit when none was recorded', () => {
    expect(read(root({ 'build-info.json': '{"version":"1.4.0"}' }))).toEqual({ version: '1.4.0', source: 'build' });
  });

  it('keeps the package version and source package for a commit fixed without a version', () => {
    expect(read(root({ 'build-info.json': '{"commit":"9f2c1ab"}' }))).toEqual({ version: '0.3.1', commit: '9f2c1ab', source: 'package' });
  });

  it('falls back to the package version for an unreadable or malformed file', () => {
    expect(read(root({ 'build-info.json': 'not json' }))).toEqual({ version: '0.3.1', source: 'package' });
    expect(read(root({ 'build-info.json': '{"version":""}' }))).toEqual({ version: '0.3.1', source: 'package' });
    expect(read(root({ 'build-info.json': '{"version":7}' }))).toEqual({ version: '0.3.1', source: 'package' });
  });

  it('reads from the repository root by default', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const info = readBuildInfo();
    if (info.source === 'package') expect(info.version).toBe(pkg.version);
    else expect(existsSync(new URL('../../build-info.json', import.meta.url))).toBe(true);
  });
});

describe('scripts/build-info.js', () => {
  it('writes build-info.json from SERVICE_BUILD_VERSION and SERVICE_BUILD_COMMIT', () => {
    const dir = root();
    runBuildScript(dir, { SERVICE_BUILD_VERSION: ' 1.4.0 ', SERVICE_BUILD_COMMIT: '9f2c1ab' });
    expect(read(dir)).toEqual({ version: '1.4.0', commit: '9f2c1ab', source: 'build' });
  });

  it('removes a stale build-info.json when neither is set, so the source is package again', () => {
    const dir = root({ 'build-info.json': '{"version":"1.4.0","commit":"9f2c1ab"}' });
    runBuildScript(dir, { SERVICE_BUILD_VERSION: '  ' });
    expect(existsSync(path.join(dir, 'build-info.json'))).toBe(false);
    expect(read(dir)).toEqual({ version: '0.3.1', source: 'package' });
  });

  it('clears dist/ so files removed from src/ do not linger in the build', () => {
    const dir = root();
    mkdirSync(path.join(dir, 'dist'));
    writeFileSync(path.join(dir, 'dist', 'stale.js'), '');
    runBuildScript(dir, {});
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  it('fails the build on a value that is not a plain version string', () => {
    const dir = root();
    expect(() => runBuildScript(dir, { SERVICE_BUILD_VERSION: '1.0; rm -rf /' })).toThrow(/SERVICE_BUILD_VERSION must be/);
    expect(existsSync(path.join(dir, 'build-info.json'))).toBe(false);
  });
});
