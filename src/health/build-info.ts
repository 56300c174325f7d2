import { readFileSync } from 'node:fs';

export interface BuildInfo {
  version: string;
  commit?: string;
  source: 'build' | 'package';
}

/** The repository root (and the image's /app): two levels above src/health or dist/health. */
const ROOT = new URL('../../', import.meta.url);

function readJson(url: URL): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(readFileSync(url, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/**
 * What /ready reports (interface-spec 4). `npm run build` fixes SERVICE_BUILD_VERSION and
 * SERVICE_BUILD_COMMIT into build-info.json (scripts/build-info.js); the running process never
 * reads them from its environment, so a deployment cannot claim a version it was not built as.
 * Without a fixed version the version is the package's own and the source `package`; a commit
 * fixed without a version is still reported.
 */
export function readBuildInfo(root: URL = ROOT): BuildInfo {
  const fixed = readJson(new URL('build-info.json', root));
  const commit = text(fixed?.commit);
  const withCommit = commit === null ? {} : { commit };
  const version = text(fixed?.version);
  if (version !== null) return { version, ...withCommit, source: 'build' };
  const pkg = readJson(new URL('package.json', root));
  return { version: text(pkg?.version) ?? '0.0.0', ...withCommit, source: 'package' };
}
