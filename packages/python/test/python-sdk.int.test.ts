// Runs the Python SDK's pytest suite (packages/python/tests) against the real jtrace server,
// started here on a free port; any pytest failure fails this test. Skipped, saying why, only when
// no Python 3.9+ with pytest is installed (CI installs Debian's python3 and python3-pytest).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, startLiveServer } from '../../node/test/server.ts';
import { findPythonWithPytest, runPython } from './python.ts';

const python = findPythonWithPytest();
if (python === null) console.warn('Python SDK tests skipped: no python3 (3.9 or later) with pytest was found; install python3 and python3-pytest.');

describe.skipIf(python === null)('Python SDK (pytest against the real server)', () => {
  let server: LiveServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startLiveServer();
    env = {
      JTRACE_TEST_URL: server.url,
      JTRACE_TEST_API_KEY: await server.project('production'),
      JTRACE_TEST_CONFORMANCE_KEY: await server.project('conformance'),
    };
  });
  afterAll(async () => {
    await server?.close();
  });

  it('passes every pytest test', async () => {
    const result = await runPython(python as string, ['-m', 'pytest', '-q', '-rs', '-p', 'no:cacheprovider', 'tests'], env);
    expect(result.code, result.output).toBe(0);
    // Every test runs here; the install check alone may skip, on an interpreter without pip.
    const skips = result.output.split('\n').filter((line) => line.startsWith('SKIPPED'));
    expect(skips.filter((line) => !line.includes('pip or setuptools is not installed')), result.output).toEqual([]);
  }, 300_000);
});
