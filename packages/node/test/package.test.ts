import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SDK_NAME, SDK_VERSION } from '../src/version.ts';

/** The published package: what `npm pack` ships, and that the built bundle stands on its own. */
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(`${PACKAGE_DIR}package.json`, 'utf8')) as Record<string, any>;

describe('@jtrace/node package', () => {
  it('sends the package name and version it is published under', () => {
    expect([SDK_NAME, SDK_VERSION]).toEqual([manifest.name, manifest.version]);
  });

  it('has no runtime dependencies and supports Node 20', () => {
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.engines).toEqual({ node: '>=20' });
    expect(manifest.peerDependenciesMeta['@opentelemetry/api'].optional).toBe(true);
  });

  it('packs only the bundle, its declarations, the README and package.json', () => {
    execFileSync(process.execPath, ['build.mjs'], { cwd: PACKAGE_DIR, stdio: 'pipe' });
    const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [packed] = JSON.parse(output) as Array<{ files: Array<{ path: string }> }>;
    expect(packed?.files.map((file) => file.path).sort()).toEqual(['README.md', 'dist/index.d.ts', 'dist/index.js', 'package.json']);
    const bundle = readFileSync(`${PACKAGE_DIR}dist/index.js`, 'utf8');
    // The kernel is bundled in: nothing points back into the repository.
    expect(bundle).not.toMatch(/from\s*["']\.\.?\//);
    expect(bundle).toContain('x-shopify-hmac-sha256');
    const declarations = readFileSync(`${PACKAGE_DIR}dist/index.d.ts`, 'utf8');
    expect(declarations).not.toMatch(/from\s*['"]\.\.?\//);
    expect(declarations).toContain('export declare function createRecorder');
    expect(declarations).toContain('export declare function httpResponseMetadata');
  }, 120_000);

  it('the built bundle loads in plain Node and wraps a call', () => {
    const script = `
      const m = await import('./dist/index.js');
      const recorder = m.createRecorder({ endpoint: 'http://127.0.0.1:9', apiKey: 'k', serviceName: 's', environment: 'e', enabled: false });
      const journey = recorder.startJourney({ entity: { type: 'order', id: '1' } });
      process.stdout.write(String(journey.transform('t', 20, (n) => n + 1)));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: PACKAGE_DIR, encoding: 'utf8' });
    expect(out).toBe('21');
  }, 60_000);
});
