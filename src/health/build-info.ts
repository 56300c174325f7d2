import { readFileSync } from 'node:fs';

export interface BuildInfo {
  version: string;
  commit?: string;
  source: 'build' | 'package';
}

/**
 * `npm run build` writes build-info.json when SERVICE_BUILD_VERSION is set; otherwise the
 * version is the package's own. Read once at start, never from the environment at run time.
 */
export function readBuildInfo(): BuildInfo {
  try {
    const fixed = JSON.parse(readFileSync(new URL('../../build-info.json', import.meta.url), 'utf8')) as {
      version?: unknown;
      commit?: unknown;
    };
    if (typeof fixed.version === 'string' && fixed.version !== '') {
      return {
        version: fixed.version,
        ...(typeof fixed.commit === 'string' && fixed.commit !== '' ? { commit: fixed.commit } : {}),
        source: 'build',
      };
    }
  } catch {
    /* no build information: fall back to the package version */
  }
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return { version: pkg.version, source: 'package' };
}
