// Where the SDK conformance cases are read from: the repository's own copy under
// test/conformance/sdk when it exists, else the shared contract checkout beside the repository.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const OWN_COPY = new URL('../../../test/conformance/sdk/', import.meta.url);
const SHARED = new URL('../../../../shared/conformance/sdk/', import.meta.url);

export function sdkConformanceDir(): string {
  return fileURLToPath(existsSync(OWN_COPY) ? OWN_COPY : SHARED);
}
