// Runs the Python SDK's pytest suite (packages/python/tests) against the real jtrace server,
// started here on a free port; any pytest failure fails this test. Skipped, saying why, only when
// no Python 3.9+ with pytest is installed (CI installs Debian's python3 and python3-pytest).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { listSdkCases } from '../../node/test/conformance-cases.ts';
import { type EnvironmentSettings, type LiveServer, startLiveServer } from '../../node/test/server.ts';
import { findPythonWithPytest, runPython } from './python.ts';

const python = findPythonWithPytest();
if (python === null) console.warn('Python SDK tests skipped: no python3 (3.9 or later) with pytest was found; install python3 and python3-pytest.');

describe.skipIf(python === null)('Python SDK (pytest against the real server)', () => {
  let server: LiveServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startLiveServer();
    // The conformance cases that set up their environment get one of their own, by case id.
    const caseKeys: Record<string, string> = {};
    for (const entry of listSdkCases().cases) {
      const settings = (JSON.parse(readFileSync(entry.file, 'utf8')) as { setup?: { environment?: EnvironmentSettings } }).setup?.environment;
      if (settings !== undefined) caseKeys[entry.id] = await server.project('conformance', settings);
    }
    env = {
      JTRACE_TEST_URL: server.url,
      JTRACE_TEST_API_KEY: await server.project('production'),
      JTRACE_TEST_CONFORMANCE_KEY: await server.project('conformance'),
      JTRACE_TEST_CASE_KEYS: JSON.stringify(caseKeys),
    };
  });
  afterAll(async () => {
    await server?.close();
  });

  it('passes every pytest test', async () => {
    const result = await runPython(python as string, ['-m', 'pytest', '-q', '-rs', '-p', 'no:cacheprovider', 'tests'], env);
    expect(result.code, result.output).toBe(0);
    // Every test runs here; the install check alone may skip, on an interpreter without pip, and the
    // conformance cases the contract marks for another language (event protocol 11.2: reported).
    const skips = result.output.split('\n').filter((line) => line.startsWith('SKIPPED'));
    const allowed = ['pip or setuptools is not installed', 'a case for another language'];
    expect(skips.filter((line) => !allowed.some((reason) => line.includes(reason))), result.output).toEqual([]);
  }, 300_000);
});
