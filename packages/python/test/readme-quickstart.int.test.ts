// The Python README's quick start, run as a reader pastes it: its shell steps name the local
// server and the key command, and its script runs against a real jtrace server, ends on the
// interface's address of the journey it made, and the API then reads that journey back. The
// package comes from source on PYTHONPATH, as `pip install ./packages/python` would provide it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks } from '../../node/test/readme.ts';
import { type LiveServer, getJson, startLiveServer } from '../../node/test/server.ts';
import { PYTHON_SOURCE, findPython, runPython } from './python.ts';

const README = new URL('../README.md', import.meta.url);
const python = findPython();
if (python === null) console.warn('Python README quick start skipped: no python3 (3.9 or later) was found.');

describe('the Python README quick start', () => {
  it('names the local server, the key command and its JSON output', () => {
    const shell = codeBlocks(README, 'Quick start', 'sh').join('\n');
    expect(shell).toContain('npm start');
    expect(shell).toMatch(/npx jtrace key:create \S+ development \S+ --json/);
    expect(codeBlocks(README, 'Quick start', 'python')[0]).toContain('"http://127.0.0.1:8080"');
  });

  describe.skipIf(python === null)('against a real server', () => {
    let server: LiveServer;
    let dir: string;

    beforeAll(async () => {
      server = await startLiveServer();
      dir = mkdtempSync(path.join(tmpdir(), 'jtrace-python-quickstart-'));
    });
    afterAll(async () => {
      await server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('runs as written, sends its journey and prints the interface address of it', async () => {
      const [script] = codeBlocks(README, 'Quick start', 'python');
      expect(script).toBeDefined();
      writeFileSync(path.join(dir, 'quickstart.py'), script!);
      const { apiKey, projectId } = await server.seed('development');
      // JTRACE_ENDPOINT stands in for 127.0.0.1:8080: this server listens on a port of its own.
      const env = { PYTHONPATH: PYTHON_SOURCE, JTRACE_ENDPOINT: server.url, JTRACE_API_KEY: apiKey, JTRACE_PROJECT_ID: projectId };
      const run = await runPython(python as string, ['quickstart.py'], env, dir);
      expect(run.code, run.output).toBe(0);
      const lines = run.output.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe('3 events sent');
      const address = new RegExp(`^${server.url}/ui/projects/${projectId}/journeys/(jrn_[0-9a-f-]{36})$`).exec(lines[1]!);
      expect(address, run.output).not.toBeNull();
      const journey = await getJson(`${server.url}/v1/journeys/${address![1]}`, apiKey);
      expect(journey.status).toBe(200);
      expect(journey.body.data).toMatchObject({ label: 'Order 1001', status: 'completed', eventCount: 3, services: ['quickstart'] });
      // The password the README promises redacted never reached the server.
      const events = await getJson(`${server.url}/v1/journeys/${address![1]}/events`, apiKey);
      const received = await getJson(`${server.url}/v1/events/${events.body.data.items[0].id}`, apiKey);
      expect(received.body.data.inputPayload).toMatchObject({ id: 'ord_1001', password: '[REDACTED]' });
    }, 60_000);
  });
});
