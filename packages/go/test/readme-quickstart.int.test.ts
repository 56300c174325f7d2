// The README's quick start, run as a reader pastes it: its shell steps name the local server, the
// key command and the module set-up, and its program runs with `go run .` against a real jtrace
// server and ends on the interface's address of the journey it made, which the API reads back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../../../src/crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, seedProject } from '../../../test/helpers/app.ts';
import { type LiveServer, getJson, startLiveServer } from '../../node/test/server.ts';
import { GO_PACKAGE, findGo, runGo } from './go.ts';

const README = new URL('../README.md', import.meta.url);
const go = findGo();

/** The fenced blocks of `language` under `## heading`, in order. */
function codeBlocks(heading: string, language: string): string[] {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  const next = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, next === -1 ? undefined : next);
  return [...section.matchAll(/^```([\w-]*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === language).map((m) => m[2] ?? '');
}

describe.skipIf(go === null)('the Go README quick start', () => {
  let server: LiveServer;
  let dir: string;

  beforeAll(async () => {
    server = await startLiveServer();
    dir = mkdtempSync(path.join(tmpdir(), 'jtrace-go-quickstart-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs as written, sends its journey and prints the interface address of it', async () => {
    const shell = codeBlocks('Quick start', 'sh').join('\n');
    expect(shell).toContain('npm start');
    expect(shell).toMatch(/npx jtrace key:create \S+ development \S+ --json/);
    const [program] = codeBlocks('Quick start', 'go');
    expect(program).toContain('"http://127.0.0.1:8080"');
    // The module lines as written; the SDK's path is this checkout's, wherever the folder is.
    for (const line of shell.split('\n').filter((l) => l.startsWith('go mod '))) {
      const args = line.replace('=../packages/go', `=${GO_PACKAGE}`).split(' ').slice(1);
      const step = await runGo(go as string, args, {}, dir);
      expect(step.code, step.output).toBe(0);
    }
    writeFileSync(path.join(dir, 'main.go'), program ?? '');
    const slug = `go-quickstart-${process.pid}`;
    const seeded = await seedProject(server.db.pool, createKeyring({ current: TEST_ENCRYPTION_KEY }), slug, 'development');
    // JTRACE_ENDPOINT stands in for 127.0.0.1:8080: this server listens on a port of its own.
    const run = await runGo(go as string, ['run', '.'], { JTRACE_ENDPOINT: server.url, JTRACE_API_KEY: seeded.apiKey, JTRACE_PROJECT_ID: seeded.projectId }, dir);
    expect(run.code, run.output).toBe(0);
    const lines = run.output.trim().split('\n');
    expect(lines, run.output).toHaveLength(2);
    expect(lines[0]).toBe('3 events sent');
    const address = new RegExp(`^${server.url}/ui/projects/${seeded.projectId}/journeys/(jrn_[0-9a-f-]{36})$`).exec(lines[1] ?? '');
    expect(address, run.output).not.toBeNull();
    const journey = await getJson(`${server.url}/v1/journeys/${address?.[1]}`, seeded.apiKey);
    expect(journey.body.data).toMatchObject({ label: 'Order 1001', status: 'completed', eventCount: 3, services: ['quickstart'] });
    const events = await getJson(`${server.url}/v1/journeys/${address?.[1]}/events`, seeded.apiKey);
    const received = await getJson(`${server.url}/v1/events/${events.body.data.items[0].id}`, seeded.apiKey);
    expect(received.body.data.inputPayload).toMatchObject({ id: 'ord_1001', password: '[REDACTED]' });
  }, 300_000);
});
