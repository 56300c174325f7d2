import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config/config.ts';
import { resolveSecrets } from './secrets.ts';

const STRONG_KEY = '6b7d1d7f7a15ed2660cb5a64532da16ece715a1e4d1c2ebcb63cc6b61f020596';
const TOKEN = 'admin-token-from-the-file-0123456789abcdef';
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'jtrace-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeSecrets(lines: string[]): void {
  writeFileSync(path.join(dir, 'secrets.env'), `${lines.join('\n')}\n`, { mode: 0o600 });
}

describe('resolveSecrets in embedded mode', () => {
  it('generates strong secrets once into secrets.env (0600) and reads them back', () => {
    const first = resolveSecrets(loadConfig({}), dir);
    expect(() => loadConfig({ ADMIN_TOKEN: first.adminToken, ENCRYPTION_KEY: first.encryptionKey })).not.toThrow();
    expect(statSync(first.generatedFile!).mode & 0o777).toBe(0o600);
    const second = resolveSecrets(loadConfig({}), dir);
    expect(second).toEqual(first);
  });

  it.each([
    ['ADMIN_TOKEN', [`ADMIN_TOKEN=short`, `ENCRYPTION_KEY=${STRONG_KEY}`]],
    ['ENCRYPTION_KEY', [`ADMIN_TOKEN=${TOKEN}`, 'ENCRYPTION_KEY=a']],
  ])('refuses a weak %s in the file as the environment would, naming the file', (name, lines) => {
    writeSecrets(lines);
    let thrown: unknown;
    try {
      resolveSecrets(loadConfig({}), dir);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const error = thrown as ConfigError;
    expect(error.variable).toBe(`${name} in ${path.join(dir, 'secrets.env')}`);
    expect(error.message).not.toContain('short');
  });

  it('ignores the file value a variable overrides, and a blank file value counts as unset', () => {
    writeSecrets(['ADMIN_TOKEN=', 'ENCRYPTION_KEY=a']);
    const secrets = resolveSecrets(loadConfig({ ENCRYPTION_KEY: STRONG_KEY }), dir);
    expect(secrets.encryptionKey).toBe(STRONG_KEY);
    expect(secrets.adminToken.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(path.join(dir, 'secrets.env'), 'utf8')).toContain(`ADMIN_TOKEN=${secrets.adminToken}`);
  });
});
