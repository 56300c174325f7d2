// Where the SDK conformance cases are read from. The contract's manifest names every sdk case;
// its files live in the repository's verbatim copy of the contract (test/conformance/sdk, or the
// shared contract beside the checkout when there is no copy) or, for the cases the contract names
// without shipping a file, in the project's own test/sdk-cases. A named case found in neither is
// a failure, never a smaller run.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const OWN_COPY = new URL('../../../test/conformance/', import.meta.url);
const SHARED = new URL('../../../../shared/conformance/', import.meta.url);
/** The project's own files for the cases the contract lists without a file. */
export const SDK_CASES_DIR = fileURLToPath(new URL('../../../test/sdk-cases/', import.meta.url));

function contractDir(): string {
  return fileURLToPath(existsSync(OWN_COPY) ? OWN_COPY : SHARED);
}

export interface SdkCaseFile {
  /** `sdk/<stem>` */
  id: string;
  stem: string;
  file: string;
}

export interface SdkCaseList {
  cases: SdkCaseFile[];
  /** Ids the manifest names that have no file in either folder. */
  missing: string[];
}

function jsonStems(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length)).sort();
}

/** Every sdk case file (the contract's own first), and the manifest ids without one. */
export function listSdkCases(): SdkCaseList {
  const contract = contractDir();
  const manifest = JSON.parse(readFileSync(path.join(contract, 'manifest.json'), 'utf8')) as { sdk?: string[] };
  const found = new Map<string, SdkCaseFile>();
  for (const dir of [path.join(contract, 'sdk'), SDK_CASES_DIR]) {
    for (const stem of jsonStems(dir)) {
      if (!found.has(stem)) found.set(stem, { id: `sdk/${stem}`, stem, file: path.join(dir, `${stem}.json`) });
    }
  }
  const missing = (manifest.sdk ?? []).filter((id) => !found.has(id.replace(/^sdk\//, '')));
  return { cases: [...found.values()].sort((a, b) => a.stem.localeCompare(b.stem)), missing };
}
