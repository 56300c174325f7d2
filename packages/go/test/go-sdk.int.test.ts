// Runs the Go SDK's tests (`go test ./...` in packages/go, with the race detector when it can
// build) against the real jtrace server, started here on a free port; any failure fails this
// test, and so does a skipped Go test. Skipped, saying why, only when no `go` binary exists (CI
// installs Debian's golang-go).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { listSdkCases } from '../../node/test/conformance-cases.ts';
import { type EnvironmentSettings, type LiveServer, startLiveServer } from '../../node/test/server.ts';
import { findGo, raceWorks, runGo } from './go.ts';

const go = findGo();
if (go === null) console.warn('Go SDK tests skipped: no go binary was found; install golang-go.');

describe.skipIf(go === null)('Go SDK (go test against the real server)', () => {
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
      JTRACE_TEST_REQUIRE_SERVER: '1',
    };
  });
  afterAll(async () => {
    await server?.close();
  });

  it('passes every go test', async () => {
    const race = raceWorks(go as string) ? ['-race'] : [];
    if (race.length === 0) console.warn('Go SDK tests run without -race: it needs cgo and gcc.');
    const result = await runGo(go as string, ['test', ...race, '-count=1', '-v', ...(process.env.JTRACE_GO_RUN ? ['-run', process.env.JTRACE_GO_RUN] : []), './...'], env);
    expect(result.code, result.output).toBe(0);
    // Every test runs here; a conformance case may skip only when it is not a Go case (marked for
    // another language), and says so.
    const lines = result.output.split('\n');
    const skips = lines.filter((line) => line.includes('--- SKIP') && !line.includes('TestConformance/'));
    expect(skips, result.output).toEqual([]);
    const reasons = lines.filter((line) => /conformance_test\.go:\d+: /.test(line) && !line.includes('not a Go case'));
    expect(reasons, result.output).toEqual([]);
    expect(result.output).toMatch(/^ok\s/m);
  }, 600_000);
});
